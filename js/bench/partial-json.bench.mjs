// Benchmark (not a test): the best-effort value of streamed tool arguments after every delta,
// agentwire's PartialJson (each delta read once, in wasm; the JavaScript copy follows its changes
// with applyPartialChanges) against the `ai` package's parsePartialJson (repair the whole text so
// far, then JSON.parse it: quadratic in the number of deltas), on the same deltas.
//
//   node js/bench/partial-json.bench.mjs          (after scripts/build.sh; prints a table)
//
// As a module (scripts/bench.sh): `run({ agentwire, log })` calls `log(name, { medianMs, … })` per
// case and implementation; the `ai` entries carry `ratio` (ai's median / agentwire's).
import { parsePartialJson } from "ai";
import { isDeepStrictEqual } from "node:util";

/**
 * A realistic `write_file` call whose JSON text is about `chars` characters: a path, Markdown with
 * line breaks, quotes and a backslash (escaped in JSON), options.
 */
function writeFileArgs(chars) {
  const line = 'A line of the meeting notes, with "quotes", a tab\tand a path C:\\notes.\n';
  const args = (content) => ({
    path: "/workspace/notes/2025-06-17-meeting.md",
    content,
    overwrite: true,
    encoding: "utf-8",
    tags: ["notes", "meeting", "q2"],
  });
  let content = "# Meeting notes\n\n";
  while (JSON.stringify(args(content + line)).length <= chars) content += line;
  while (JSON.stringify(args(content + "x")).length <= chars) content += "x";
  return args(content);
}

/** Search results: nested objects and arrays, numbers, booleans, null, non-ASCII text. */
function searchArgs(results) {
  return {
    query: "incremental JSON parsing in WebAssembly",
    results: Array.from({ length: results }, (_, i) => ({
      rank: i + 1,
      score: Math.round((1 - i / results) * 1e6) / 1e6,
      url: `https://example.com/articles/${i}/incremental-parsing`,
      title: `Résultat ${i}: parsing JSON one delta at a time — ${"é".repeat(i % 5)}`,
      snippet: "Streaming parsers read each byte once; re-parsing the prefix is quadratic. ".repeat(2),
      tags: ["json", "wasm", i % 2 === 0 ? "rust" : "js"],
      cached: i % 3 === 0,
      expires: null,
    })),
  };
}

/** Splits `text` into deltas of `size` UTF-16 units (never inside a surrogate pair). */
function deltas(text, size) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(i + size, text.length);
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** agentwire: push each delta, apply its changes to the JavaScript copy. */
function runAgentwire(agentwire, pieces) {
  const p = new agentwire.PartialJson();
  try {
    let value;
    for (const d of pieces) value = agentwire.applyPartialChanges(value, p.push(d));
    return value;
  } finally {
    p.free();
  }
}

/** ai: parse the whole text so far after each delta (what its streaming tool-call code does). */
async function runAi(pieces) {
  let text = "";
  let value;
  for (const d of pieces) {
    text += d;
    const r = await parsePartialJson(text);
    if (r.value !== undefined) value = r.value;
  }
  return value;
}

async function time(fn, runs) {
  const ms = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms, result };
}

/** The cases: name, the arguments object, delta size (UTF-16 units), runs of each side. */
function cases() {
  return [
    { name: "4000 one-character deltas (write_file)", args: writeFileArgs(4000), size: 1, runs: { agentwire: 15, ai: 7 } },
    { name: "20000 one-character deltas (write_file)", args: writeFileArgs(20000), size: 1, runs: { agentwire: 9, ai: 3 } },
    { name: "16-character deltas (search results, 74 kB)", args: searchArgs(200), size: 16, runs: { agentwire: 9, ai: 3 } },
  ];
}

/**
 * Runs every case. `agentwire` is the package module; `log(name, fields)` receives one entry per
 * case and implementation: `{ medianMs, runs, deltas, chars, … }`.
 */
export async function run({ agentwire, log }) {
  for (const c of cases()) {
    const text = JSON.stringify(c.args);
    const pieces = deltas(text, c.size);
    // Warm up agentwire (JIT, wasm tier-up); both must end with JSON.parse's value.
    const expected = JSON.parse(text);
    runAgentwire(agentwire, pieces);
    const a = await time(() => runAgentwire(agentwire, pieces), c.runs.agentwire);
    const b = await time(() => runAi(pieces), c.runs.ai);
    if (!isDeepStrictEqual(a.result, expected)) throw new Error(`agentwire disagrees on ${c.name}`);
    if (!isDeepStrictEqual(b.result, expected)) throw new Error(`ai disagrees on ${c.name}`);
    const base = { deltas: pieces.length, chars: text.length };
    const am = median(a.ms);
    const bm = median(b.ms);
    log(`partial-json: ${c.name}: agentwire PartialJson`, { medianMs: am, runs: a.ms.length, ...base });
    log(`partial-json: ${c.name}: ai parsePartialJson`, { medianMs: bm, runs: b.ms.length, ratio: bm / am, ...base });
  }
}

// Run alone: `node js/bench/partial-json.bench.mjs`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { fileURLToPath } = await import("node:url");
  const { dirname, join } = await import("node:path");
  const pkg = join(dirname(fileURLToPath(import.meta.url)), "../../pkg/node/index.js");
  const agentwire = await import(pkg);
  const { version } = (await import("ai/package.json", { with: { type: "json" } })).default;
  console.log(`agentwire PartialJson vs ai ${version} parsePartialJson (median of several runs)\n`);
  await run({
    agentwire,
    log: (name, f) => {
      const ratio = f.ratio === undefined ? "" : `  (${f.ratio.toFixed(0)}× agentwire)`;
      console.log(`${name}\n  ${f.medianMs.toFixed(2)} ms median, ${f.deltas} deltas, ${f.chars} characters${ratio}`);
    },
  });
}
