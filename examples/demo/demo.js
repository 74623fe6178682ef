// The live agent UI: a user's page built on the agentwire package. It renders with DOM APIs only
// (textContent, createElement): agent data never goes through innerHTML.
import init, { AgentClient, RequestBuilder, ProtocolError, classifyUrl } from "agentwire";

const $ = (id) => document.getElementById(id);
const form = $("prompt-form"), promptInput = $("prompt"), send = $("send"), stop = $("stop");
const statusLine = $("status"), errors = $("errors"), transcript = $("transcript"), sources = $("sources");

function setStatus(status, text) {
  statusLine.dataset.status = status;
  statusLine.textContent = text;
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Only URLs the SDK classifies as safe are rendered: images from http(s), blob: or data:image/…. */
function safeImage(url) {
  if (typeof url !== "string") return false;
  const c = classifyUrl(url);
  return c.safe && ["https", "http", "blob", "data-image"].includes(c.kind);
}
/** Links only to http(s). */
function safeLink(url) {
  if (typeof url !== "string") return false;
  const c = classifyUrl(url);
  return c.safe && (c.kind === "https" || c.kind === "http");
}

class View {
  constructor() {
    this.messages = new Map(); // msg id -> { root, type, contents: Map(index -> element) }
    this.toolCards = new Map(); // call id -> card element
  }

  message(m) {
    let v = this.messages.get(m.id);
    if (!v) {
      const root = el("article", "message");
      root.dataset.msgId = m.id;
      const meta = el("div", "meta");
      root.append(meta);
      transcript.append(root);
      v = { root, meta, type: m.type, contents: new Map() };
      this.messages.set(m.id, v);
    }
    v.type = m.type;
    v.root.dataset.type = m.type;
    v.root.dataset.status = m.status ?? "";
    v.root.classList.toggle("reasoning", m.type === "reasoning");
    v.root.classList.toggle("tool-card", m.type === "function_call" || m.type === "function_call_output");
    v.meta.textContent = `${m.role ?? ""} · ${m.type}${m.status ? " · " + m.status : ""}`;
    for (const c of m.content ?? []) this.content(c);
    return v;
  }

  content(c) {
    const v = this.messages.get(c.msg_id) ?? this.message({ id: c.msg_id, type: "message" });
    if (v.type === "function_call" && c.type === "data") return this.toolCall(v, c);
    if (v.type === "function_call_output" && c.type === "data") return this.toolResult(v, c);
    if (c.name !== undefined) return; // named parts are attachments: sources go to the panel
    let node = v.contents.get(c.index);
    const fresh = !node;
    switch (c.type) {
      case "text":
      case "refusal":
        node ??= el("p", "text");
        node.textContent = c.text ?? c.refusal ?? "";
        break;
      case "data":
        node = this.data(c.data, node);
        v.contents.set(c.index, node); // the new table replaced the old one in the page
        break;
      case "image":
        node ??= el("img", "content-image");
        if (safeImage(c.image_url)) node.src = c.image_url;
        node.alt = "image from the agent";
        break;
      default:
        node ??= el("pre", "unknown");
        node.textContent = JSON.stringify(c);
    }
    if (fresh) {
      v.contents.set(c.index, node);
      v.root.append(node);
    }
    return node;
  }

  textDelta(delta, { msgId, index }) {
    const v = this.messages.get(msgId);
    const node = v?.contents.get(index);
    if (node) node.append(document.createTextNode(delta));
    else if (v?.type === "function_call") this.cardArgs(v, delta, true);
  }

  dataDelta(delta, { msgId }) {
    const v = this.messages.get(msgId);
    if (v?.type === "function_call" && typeof delta?.arguments === "string") this.cardArgs(v, delta, true);
  }

  card(v) {
    if (!v.card) {
      v.card = {
        title: el("div", "title"),
        args: el("div", "args"),
        state: el("div", "state"),
        result: el("div", "result"),
      };
      v.root.append(v.card.title, v.card.args, v.card.state, v.card.result);
    }
    return v.card;
  }

  cardArgs(v, data, append) {
    const card = this.card(v);
    if (data.name) card.title.textContent = `Tool call: ${data.name}`;
    if (typeof data.arguments === "string") {
      card.args.textContent = append ? card.args.textContent + data.arguments : data.arguments;
    }
    if (data.call_id) this.toolCards.set(data.call_id, v);
    card.state.textContent = "arguments streaming…";
  }

  toolCall(v, c) {
    this.cardArgs(v, c.data ?? {}, false);
    if (c.status === "completed") this.card(v).state.textContent = "called";
  }

  toolResult(v, c) {
    const data = c.data ?? {};
    const call = this.toolCards.get(data.call_id);
    const target = call ?? v;
    const card = this.card(target);
    card.result.textContent = `→ ${data.output ?? ""}`;
    card.state.textContent = "result received";
    if (call && v !== call) v.root.hidden = true; // the result is shown on its call's card
  }

  data(value, node) {
    const table = el("table", "data");
    if (value && Array.isArray(value.columns) && Array.isArray(value.rows)) {
      const head = el("tr");
      for (const col of value.columns) head.append(el("th", "", String(col)));
      table.append(head);
      for (const row of value.rows) {
        const tr = el("tr");
        for (const cell of Array.isArray(row) ? row : [row]) tr.append(el("td", "", String(cell)));
        table.append(tr);
      }
    } else {
      for (const [k, v] of Object.entries(value ?? {})) {
        const tr = el("tr");
        tr.append(el("th", "", k), el("td", "", JSON.stringify(v)));
        table.append(tr);
      }
    }
    node?.replaceWith(table);
    return table;
  }

  source(part) {
    const id = `source-${part.name}`;
    let li = document.getElementById(id);
    if (!li) {
      li = el("li");
      li.id = id;
      sources.append(li);
    }
    li.textContent = "";
    const url = part.content ?? part.contentUrl ?? "";
    if (safeLink(url)) {
      const a = el("a", "", url);
      a.href = url;
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      li.append(a);
    } else {
      li.append(el("span", "", url));
    }
  }
}

function showError(e) {
  const p = el("div", "error");
  p.dataset.code = e.code ?? "error";
  p.textContent = `${e.code ?? "error"}: ${e.message}`;
  errors.append(p);
}

/**
 * `?endpoint=` as a path of this page's own server, with `query` added to the one it may have. The
 * parameter comes from a link anyone can write: a value that would leave this origin (the prompt
 * sent to another site, `?endpoint=.evil.example/x` on a page without a port) falls back to
 * `/process`.
 */
function sameOriginEndpoint(value, query) {
  let url = new URL("/process", location.origin);
  if (value.startsWith("/") && !value.startsWith("//")) {
    const given = new URL(value, location.origin);
    if (given.origin === location.origin) url = given;
  }
  for (const [k, v] of query) url.searchParams.set(k, v);
  return url.pathname + url.search;
}

let controller;

async function run(prompt) {
  transcript.textContent = "";
  sources.textContent = "";
  errors.textContent = "";
  controller = new AbortController();
  send.disabled = true;
  stop.disabled = false;
  setStatus("streaming", "Streaming…");
  const view = new View();
  // ?pace=MS slows the reference agent down; ?hostile=1 makes it send javascript: URLs;
  // ?endpoint=/path points at another endpoint.
  const params = new URLSearchParams(location.search);
  const query = new URLSearchParams();
  if (params.has("pace")) query.set("pace_ms", params.get("pace"));
  if (params.has("hostile")) query.set("hostile", "1");
  const endpoint = sameOriginEndpoint(params.get("endpoint") ?? "/process", query);
  const client = new AgentClient({ baseUrl: location.origin, endpoint });
  const request = new RequestBuilder().text("user", prompt).sessionId("demo").build();
  const stream = client.stream(
    request,
    {
      onMessage: (m) => view.message(m),
      onContent: (c) => view.content(c),
      onTextDelta: (d, target) => view.textDelta(d, target),
      onDataDelta: (d, target) => view.dataDelta(d, target),
      onResponse: (r) => setStatus(r.status, `Response ${r.status}`),
      onWarning: (w) => console.warn("agentwire warning", w.code, w.details),
      onError: showError,
      onDone: (r) => setStatus(r.status, `Done: ${r.status}`),
    },
    { signal: controller.signal },
  );
  // The sources panel follows the named parts /sources/* as they arrive.
  stream.onPart("/sources/*", (part) => view.source(part));
  try {
    await stream.response;
  } catch (e) {
    if (e instanceof ProtocolError && e.code === "aborted") setStatus("aborted", "Stopped (aborted by you)");
    else {
      setStatus("error", `Failed: ${e.code ?? e.message}`);
      if (!(e instanceof ProtocolError)) showError(e);
    }
  } finally {
    send.disabled = false;
    stop.disabled = true;
  }
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  run(promptInput.value);
});
stop.addEventListener("click", () => controller?.abort());

init().then(
  () => {
    setStatus("idle", "Ready");
    send.disabled = false;
    document.body.dataset.ready = "true";
  },
  (e) => {
    setStatus("error", "Could not load agentwire");
    showError(e);
  },
);
send.disabled = true;
