// The tools demo: tools implemented in this page, run for the agent by agentwire's tool loop, over
// the Agent API (get_time) and AgentX (write_file, with the agent correcting a bad call). Rendered
// with DOM APIs only (textContent, createElement, Text.appendData): agent data never goes through
// innerHTML.
import init, { AgentClient, AgentxClient, RequestBuilder, ProtocolError, agentxUserMessage } from "agentwire";

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

const params = new URLSearchParams(location.search);
// ?pace=MS slows the scripted agents down so the streaming is visible.
const pace = params.has("pace") ? `pace_ms=${encodeURIComponent(params.get("pace"))}` : "";

/**
 * Renders a JSON value that grows by `PartialChange`s: each change touches only the node at its
 * path (an append adds text to one Text node), so following the arguments costs what they add.
 */
class JsonView {
  constructor(root) {
    this.root = root;
    this.nodes = new Map(); // JSON path -> { el, text?: Text, children?: element }
  }

  static key(path) {
    return JSON.stringify(path);
  }

  apply(changes) {
    for (const c of changes) {
      if (c.op === "append") {
        this.nodes.get(JsonView.key(c.path))?.text?.appendData(c.value);
      } else {
        this.set(c.path, c.value);
      }
    }
  }

  set(path, value) {
    // The node this path had, looked up before `make` registers the new one (an object's or an
    // array's node is registered as it is made): a set that replaces it swaps it in the page, a
    // set of a new path adds a row to its parent.
    const k = JsonView.key(path);
    const old = this.nodes.get(k);
    const node = this.make(path, value);
    this.nodes.set(k, node);
    if (path.length === 0) {
      this.root.replaceChildren(node.el);
      return;
    }
    if (old) {
      old.el.replaceWith(node.el);
      return;
    }
    const parent = this.nodes.get(JsonView.key(path.slice(0, -1)));
    const last = path[path.length - 1];
    const row = el("div", "json-row");
    row.append(el("span", "json-key", typeof last === "number" ? `${last}:` : `${last}:`), node.el);
    parent?.children?.append(row);
  }

  make(path, value) {
    if (value !== null && typeof value === "object") {
      const box = el("div", Array.isArray(value) ? "json-array" : "json-object");
      const node = { el: box, children: box };
      // Set values are empty containers (their members follow as changes), but be general.
      this.nodes.set(JsonView.key(path), node);
      for (const [k, v] of Object.entries(value)) {
        const sub = [...path, Array.isArray(value) ? Number(k) : k];
        const child = this.make(sub, v);
        this.nodes.set(JsonView.key(sub), child);
        const row = el("div", "json-row");
        row.append(el("span", "json-key", `${k}:`), child.el);
        box.append(row);
      }
      return node;
    }
    if (typeof value === "string") {
      const span = el("span", "json-string");
      const text = document.createTextNode(value);
      span.append('"', text, '"');
      return { el: span, text };
    }
    return { el: el("span", "json-literal", JSON.stringify(value)) };
  }
}

/** A tool card: its state moves streaming → called → valid / invalid → result / error. */
class ToolCard {
  constructor(transcript, name) {
    this.root = el("article", "message tool-card");
    this.title = el("div", "title", `Tool call: ${name || "…"}`);
    this.args = el("div", "args");
    this.state = el("div", "state");
    this.result = el("div", "result");
    this.result.hidden = true;
    this.root.append(this.title, this.args, this.state, this.result);
    this.root.dataset.history = "";
    this.root.dataset.deltas = "0";
    this.view = new JsonView(this.args);
    transcript.append(this.root);
  }

  setName(name) {
    if (name) this.title.textContent = `Tool call: ${name}`;
  }

  to(state, text) {
    this.root.dataset.state = state;
    const h = this.root.dataset.history;
    if (!h.split(" ").includes(state)) this.root.dataset.history = h ? `${h} ${state}` : state;
    this.state.textContent = text;
  }

  /** Arguments that arrived whole (AgentX), rendered at once. */
  whole(args) {
    this.view.set([], args);
  }

  checked(call) {
    if (call.error) this.to("invalid", `invalid: ${call.error.message}`);
    else this.to("valid", "arguments valid · running in the page…");
  }

  outcome(o) {
    this.result.hidden = false;
    if (o.type === "result") {
      this.to("result", "result sent back to the agent");
      this.result.textContent = `→ ${JSON.stringify(o.value)}`;
    } else {
      if (o.error.errorType === "EXECUTION") this.to("error", "the tool failed; error sent back");
      else this.state.textContent += " · error sent back";
      this.result.classList.add("error");
      this.result.textContent = `${o.error.errorType}: ${o.error.message}`;
    }
  }
}

function setStatus(node, status, text) {
  node.dataset.status = status;
  node.textContent = text;
}

function showError(box, e) {
  const p = el("div", "error");
  p.dataset.code = e.code ?? "error";
  p.textContent = `${e.code ?? "error"}: ${e.message}`;
  box.append(p);
}

const GET_TIME = {
  type: "object",
  properties: {
    timezone: { type: "string", minLength: 1, description: "An IANA timezone, e.g. Europe/Paris." },
    format: { enum: ["HH:mm", "HH:mm:ss"] },
    reason: { type: "string" },
  },
  required: ["timezone"],
  additionalProperties: false,
};

/** The page's clock: the time in `timezone` (UTC if the browser does not know it). */
function getTime({ timezone, format }) {
  const options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  if (format === "HH:mm:ss") options.second = "2-digit";
  try {
    return { time: new Date().toLocaleTimeString("en-GB", { ...options, timeZone: timezone }), timezone };
  } catch {
    return { time: new Date().toISOString().slice(11, 16), timezone: "UTC" };
  }
}

async function runAgentApi() {
  const transcript = $("agent-transcript"), status = $("agent-status"), errors = $("agent-errors");
  transcript.textContent = "";
  errors.textContent = "";
  $("run-agent").disabled = true;
  setStatus(status, "streaming", "Streaming…");
  const client = new AgentClient({ baseUrl: location.origin, endpoint: `/process?agent=tools${pace ? "&" + pace : ""}` });
  client.tools.register("get_time", GET_TIME, getTime, { description: "The current time in a timezone." });
  const cards = new Map(); // call key -> card
  const byCallId = new Map();
  const texts = new Map(); // msg id -> paragraph
  const cardOf = (call) => {
    const key = `${call.msgId}/${call.index}`;
    let card = cards.get(key);
    if (!card) {
      card = new ToolCard(transcript, call.name);
      cards.set(key, card);
    }
    if (call.callId) byCallId.set(call.callId, card);
    card.setName(call.name);
    return card;
  };
  const stream = client.stream(new RequestBuilder().text("user", "What time is it in Paris?").build(), {
    onToolCallStart: (call) => cardOf(call).to("streaming", "arguments streaming…"),
    onToolArguments: (_callId, _value, changes, call) => {
      const card = cardOf(call);
      card.view.apply(changes);
      card.root.dataset.deltas = String(Number(card.root.dataset.deltas) + 1);
    },
    onToolCall: (_call, state) => cardOf(state).to("called", "arguments complete · validating…"),
    onToolCheck: (call) => byCallId.get(call.callId)?.checked(call),
    onToolResult: (o) => byCallId.get(o.callId)?.outcome(o),
    onToolRound: (round) => setStatus(status, "streaming", `Sent the tool's output back (round ${round})…`),
    onMessage: (m) => {
      if (m.type === "message" && m.role === "assistant" && m.id && !texts.has(m.id)) {
        const article = el("article", "message");
        article.dataset.type = "message";
        const p = el("p", "text");
        article.append(p);
        transcript.append(article);
        texts.set(m.id, p);
      }
    },
    onTextDelta: (d, { msgId }) => texts.get(msgId)?.append(document.createTextNode(d)),
    onError: (e) => showError(errors, e),
  });
  try {
    const response = await stream.response;
    setStatus(status, response.status, `Done: ${response.status}`);
  } catch (e) {
    setStatus(status, "error", `Failed: ${e.code ?? e.message}`);
    if (!(e instanceof ProtocolError)) showError(errors, e);
  } finally {
    $("run-agent").disabled = false;
  }
}

async function runAgentx() {
  const transcript = $("agentx-transcript"), status = $("agentx-status"), errors = $("agentx-errors");
  transcript.textContent = "";
  errors.textContent = "";
  $("files").textContent = "";
  $("run-agentx").disabled = true;
  setStatus(status, "streaming", "Streaming…");
  const files = new Map();
  const client = new AgentxClient({ baseUrl: location.origin, endpoint: `/chat${pace ? "?" + pace : ""}` });
  client.tools.register(
    "write_file",
    {
      type: "object",
      properties: { path: { type: "string", minLength: 1 }, content: { type: "string" } },
      required: ["path", "content"],
      additionalProperties: false,
    },
    async ({ path, content }) => {
      files.set(path, content);
      const li = el("li");
      li.append(el("code", "", path), document.createTextNode(` (${content.length} characters)`));
      $("files").append(li);
      return { status: "success", bytes: new TextEncoder().encode(content).length };
    },
    { description: "Write text to a file in the page's workspace." },
  );
  const cards = new Map(); // tool_call_id -> card
  const texts = new Map(); // `${round}/${message}/${part}` -> paragraph
  const chat = client.chat([agentxUserMessage("Please write hello.txt with a greeting.")], {
    onPart: (part, at) => {
      if (part.type !== "text") return;
      const article = el("article", "message");
      article.dataset.type = "message";
      article.dataset.round = String(at.round);
      const p = el("p", "text", part.text);
      article.append(p);
      transcript.append(article);
      texts.set(`${at.round}/${at.messageIndex}/${at.partIndex}`, p);
    },
    onTextDelta: (d, at) => texts.get(`${at.round}/${at.messageIndex}/${at.partIndex}`)?.append(document.createTextNode(d)),
    onToolCall: (call) => {
      const card = new ToolCard(transcript, call.tool_name);
      card.root.dataset.callId = call.tool_call_id;
      card.whole(call.args);
      card.to("called", "called · validating…");
      cards.set(call.tool_call_id, card);
    },
    onToolCheck: (call) => cards.get(call.callId)?.checked(call),
    onToolResult: (o) => cards.get(o.callId)?.outcome(o),
    onToolRound: (round) => setStatus(status, "streaming", `Sent the tool's outcome back (round ${round})…`),
    onError: (e) => showError(errors, e),
  });
  try {
    await chat.messages;
    setStatus(status, "completed", "Done: completed");
  } catch (e) {
    setStatus(status, "error", `Failed: ${e.code ?? e.message}`);
    if (!(e instanceof ProtocolError)) showError(errors, e);
  } finally {
    $("run-agentx").disabled = false;
  }
}

$("run-agent").addEventListener("click", () => runAgentApi());
$("run-agentx").addEventListener("click", () => runAgentx());

init().then(
  () => {
    for (const id of ["agent-status", "agentx-status"]) setStatus($(id), "idle", "Ready");
    $("run-agent").disabled = false;
    $("run-agentx").disabled = false;
    document.body.dataset.ready = "true";
  },
  (e) => {
    for (const id of ["agent-status", "agentx-status"]) setStatus($(id), "error", "Could not load agentwire");
    showError($("agent-errors"), e);
  },
);
