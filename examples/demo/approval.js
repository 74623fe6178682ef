// The approval flow: a page built on the agentwire package's ACP client. The agent (the reference
// server's `approval`, at /acp) plans, then asks before it acts. The Approve / Reject / Cancel
// buttons are enabled from the run's lifecycle (`handle.session.allowedMoves("client")`): `resume`
// is allowed only while the run awaits, `cancel` until it ends. Rendering uses DOM APIs only
// (textContent, createElement): agent data never goes through innerHTML.
import init, { AcpClient, CommunicationSchema, ProtocolError } from "agentwire";

const $ = (id) => document.getElementById(id);
const form = $("task-form"), task = $("task"), start = $("start");
const approve = $("approve"), reject = $("reject"), cancel = $("cancel");
const stateLine = $("state"), errors = $("errors"), transcript = $("transcript");
const question = $("question"), result = $("result"), states = $("states");

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(e) {
  const p = el("div", "error");
  p.dataset.code = e?.code ?? "error";
  p.textContent = `${e?.code ?? "error"}: ${e?.message ?? e}`;
  errors.append(p);
}

/** The text of a message's `text/plain` parts. */
const textOf = (message) =>
  (message?.parts ?? []).filter((p) => (p.content_type ?? "text/plain") === "text/plain").map((p) => p.content ?? "").join("");

/** Output messages as articles; text parts as spans that grow with each delta. */
class View {
  constructor() {
    this.articles = new Map(); // message index -> { root, spans: Map(part index -> span) }
  }

  article(index) {
    let a = this.articles.get(index);
    if (!a) {
      const root = el("article", "message");
      root.dataset.index = String(index);
      root.append(el("div", "meta", "agent"));
      const text = el("p", "text");
      root.append(text);
      transcript.append(root);
      a = { root, text, spans: new Map() };
      this.articles.set(index, a);
    }
    return a;
  }

  message(message, index) {
    const a = this.article(index);
    a.root.querySelector(".meta").textContent = message.role ?? "agent";
    a.text.textContent = "";
    a.spans.clear();
    (message.parts ?? []).forEach((p, i) => this.part(p, { messageIndex: index, partIndex: i }));
  }

  part(part, { messageIndex, partIndex }) {
    if ((part.content_type ?? "text/plain") !== "text/plain" || part.name) return;
    const a = this.article(messageIndex);
    const span = el("span", "", part.content ?? "");
    a.spans.set(partIndex, span);
    a.text.append(span);
  }

  textDelta(delta, { messageIndex, partIndex }) {
    this.articles.get(messageIndex)?.spans.get(partIndex)?.append(document.createTextNode(delta));
  }
}

let handle = null;

/** Enables each button from the moves the lifecycle allows the client now. */
function render() {
  const moves = handle ? handle.session.allowedMoves("client").map((m) => m.type) : [];
  approve.disabled = reject.disabled = !moves.includes("resume");
  cancel.disabled = !moves.includes("cancel");
  const state = handle?.state ?? "idle";
  stateLine.dataset.state = state;
  stateLine.textContent = `State: ${state}`;
}

function onStateChange(from, to, move) {
  const li = el("li", "", `${from} → ${to} (${move.party} ${move.type})`);
  li.dataset.to = to;
  states.append(li);
  if (to !== "awaiting") question.hidden = true;
  render();
}

function finish(run) {
  result.dataset.status = run.status;
  result.textContent = run.status === "failed" ? `Run failed: ${run.error?.message ?? ""}` : `Run ${run.status}`;
}

function startRun(text) {
  transcript.textContent = "";
  errors.textContent = "";
  states.textContent = "";
  result.textContent = "";
  result.dataset.status = "";
  question.hidden = true;
  start.disabled = true;
  // ?pace=MS slows the reference agent down (a query parameter of POST /acp/runs).
  const pace = new URLSearchParams(location.search).get("pace");
  const client = new AcpClient({
    baseUrl: new URL("/acp", location.href).href,
    fetch: async (request) => {
      if (pace === null || request.method !== "POST" || !request.url.endsWith("/acp/runs")) return fetch(request);
      const url = `${request.url}?pace_ms=${encodeURIComponent(pace)}`;
      return fetch(url, { method: "POST", headers: request.headers, body: await request.text(), signal: request.signal });
    },
  });
  const view = new View();
  handle = client.run("approval", text, {
    onMessage: (m, i) => view.message(m, i),
    onPart: (p, t) => view.part(p, t),
    onTextDelta: (d, t) => view.textDelta(d, t),
    onAwaiting: (request) => {
      question.textContent = textOf(request.message) || "The agent awaits your answer.";
      question.hidden = false;
    },
    onStateChange,
    onWarning: (w) => console.warn("agentwire warning", w.code, w.details),
    onError: showError,
  });
  render();
  handle.run.then(finish, (e) => {
    result.dataset.status = "error";
    result.textContent = `Run failed: ${e.code ?? e.message}`;
  }).finally(() => {
    start.disabled = false;
    render();
  });
}

/** Runs a client move; a move the lifecycle refuses throws `move-not-allowed` at once. */
function act(move) {
  try {
    move().catch(showError);
  } catch (e) {
    if (e instanceof ProtocolError) showError(e);
    else throw e;
  }
  render();
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  startRun(task.value);
});
approve.addEventListener("click", () => act(() => handle.resume("yes")));
reject.addEventListener("click", () => act(() => handle.resume("no")));
cancel.addEventListener("click", () => act(() => handle.cancel()));

init().then(
  () => {
    const schema = CommunicationSchema.builtin("acpRun");
    $("lifecycle").textContent = schema.toMermaid();
    schema.free();
    render();
    start.disabled = false;
    document.body.dataset.ready = "true";
  },
  (e) => {
    stateLine.textContent = "Could not load agentwire";
    showError(e);
  },
);
