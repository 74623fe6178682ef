// The upload page: a user drops or picks a JSON message file, chooses a body schema (one of the
// built-ins, or none) and sees the report of validatePayload. It renders with DOM APIs only
// (textContent, createElement): nothing from the file goes through innerHTML.
import init, { BodySchema, MessageBody, ProtocolError, validatePayload } from "agentwire";

const $ = (id) => document.getElementById(id);
const schemaSelect = $("schema"), fileInput = $("file"), drop = $("drop"), statusLine = $("status");
const report = $("report"), summary = $("summary"), problems = $("problems"), partsTable = $("parts");

/** The default limits, as validatePayload documents them. */
const LIMITS = { maxBytes: 10 * 1024 * 1024, maxParts: 1000, maxPartBytes: 5 * 1024 * 1024, maxDepth: 64 };

let current; // the last file chosen, validated again when the schema changes

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setStatus(status, text) {
  statusLine.dataset.status = status;
  statusLine.textContent = text;
}

const mib = (n) => `${n / (1024 * 1024)} MiB`;

/** One line per built-in schema, from its JSON: "researcher: unnamed text/… (required), /sources/* text/x-uri". */
function describe(name) {
  const schema = BodySchema.builtin(name);
  try {
    const parts = schema.toJSON().parts.map((p) => `${p.name ?? "unnamed"} ${p.contentType}${p.required ? " (required)" : ""}`);
    return `${name}: ${parts.join(", ")}`;
  } finally {
    schema.free();
  }
}

/** Where a problem is: the part (index and name), the JSON line and column, or the schema part. */
function where(e) {
  const at = [];
  if (e.partIndex !== null) at.push(`part ${e.partIndex} (${e.name ?? "unnamed"})`);
  else if (e.schemaPart !== null) at.push(`schema part ${e.schemaPart}${e.name ? ` (${e.name})` : " (unnamed parts)"}`);
  if (e.line !== null) at.push(`line ${e.line}, column ${e.column}`);
  return at.length > 0 ? at.join(" · ") : "the whole message";
}

function showParts(text) {
  const body = partsTable.tBodies[0];
  body.textContent = "";
  let message;
  try {
    message = MessageBody.fromJSON(text);
  } catch {
    partsTable.hidden = true;
    return;
  }
  try {
    message.parts.forEach((p, i) => {
      const tr = el("tr");
      tr.append(el("td", "", String(i)), el("td", "", p.name ?? "(main content)"), el("td", "", p.type ?? "text"), el("td", "", p.contentType ?? ""));
      body.append(tr);
    });
  } finally {
    message.free();
  }
  partsTable.hidden = false;
}

async function validate(file) {
  current = file;
  const schemaName = schemaSelect.value;
  setStatus("validating", `Checking ${file.name}…`);
  const schema = schemaName ? BodySchema.builtin(schemaName) : null;
  try {
    const result = await validatePayload(file, schema);
    if (file !== current) return; // another file was chosen meanwhile
    problems.textContent = "";
    partsTable.hidden = true;
    report.dataset.state = "done";
    report.dataset.ok = String(result.ok);
    const against = schemaName ? ` against the ${schemaName} schema` : "";
    if (result.ok) {
      summary.textContent = `${file.name} is a valid message${against}.`;
      showParts(await file.text());
    } else {
      const n = result.errors.length;
      summary.textContent = `${file.name}: ${n} problem${n === 1 ? "" : "s"}${against}.`;
      for (const e of result.errors) {
        const li = el("li");
        li.dataset.code = e.code;
        li.append(el("span", "code", e.code), document.createTextNode(` ${e.message}`), el("span", "where", where(e)));
        problems.append(li);
      }
    }
    setStatus("done", `Checked ${file.name} (${file.size} bytes).`);
  } catch (e) {
    report.dataset.state = "done";
    report.dataset.ok = "false";
    problems.textContent = "";
    summary.textContent = `${file.name} could not be checked.`;
    const li = el("li");
    li.dataset.code = e instanceof ProtocolError ? e.code : "error";
    li.append(el("span", "code", li.dataset.code), document.createTextNode(` ${e.message}`));
    problems.append(li);
    setStatus("error", "Failed.");
  } finally {
    schema?.free();
  }
}

fileInput.addEventListener("change", () => {
  const file = fileInput.files?.[0];
  if (file) validate(file);
});
schemaSelect.addEventListener("change", () => {
  if (current) validate(current);
});
for (const type of ["dragenter", "dragover"]) {
  drop.addEventListener(type, (ev) => {
    ev.preventDefault();
    drop.classList.add("over");
  });
}
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (ev) => {
  ev.preventDefault();
  drop.classList.remove("over");
  const file = ev.dataTransfer?.files?.[0];
  if (file) validate(file);
});

init().then(
  () => {
    for (const name of BodySchema.builtinNames()) {
      const option = el("option", "", describe(name));
      option.value = name;
      schemaSelect.append(option);
    }
    $("limits").textContent = `Limits: ${mib(LIMITS.maxBytes)} per file (larger files are refused without being read), ` +
      `${LIMITS.maxParts} parts, ${mib(LIMITS.maxPartBytes)} per part, JSON nested ${LIMITS.maxDepth} deep.`;
    setStatus("idle", "Ready: choose a file.");
    document.body.dataset.ready = "true";
  },
  (e) => setStatus("error", `Could not load agentwire: ${e.message}`),
);
