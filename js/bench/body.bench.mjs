// Benchmarks of message bodies (not timed tests): glob pattern matching (patterns compiled once,
// many names, pathological patterns) and validating a 10 MB payload.
//
// A module for the bench command (scripts/bench.sh runs every js/bench/*.bench.mjs in Node and in
// Chromium): `run({ agentwire, log })` takes the package's module and calls `log(name, figures)`
// per measurement. Runnable alone with the built package: `node js/bench/body.bench.mjs`.
//
// Figures: `medianMs` is the median wall time of one run in milliseconds (`performance.now()`),
// `mbPerSec` is 10^6 bytes per second of input, `nsPerMatch` nanoseconds per name matched.

const RUNS = 15;

/** The median of `runs` timed calls of `fn` (after two warm-up calls), in milliseconds. */
async function median(fn, runs = RUNS) {
  await fn();
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const round = (x, digits = 3) => Number(x.toPrecision(digits));

/** A message of about `bytes` bytes of JSON: a write-up and sources of `text/x-uri`. */
function researcherPayload(bytes) {
  const parts = [{ type: "text", contentType: "text/markdown", content: "# Findings\n" }];
  const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(180); // ~10 KB
  let size = 0;
  for (let i = 1; size < bytes - 12_000; i++) {
    const part = { type: "text", name: `/sources/${i}`, contentType: "text/x-uri", content: `https://example.org/${i}#${filler}` };
    size += JSON.stringify(part).length + 1;
    parts.push(part);
  }
  return JSON.stringify({ parts });
}

/**
 * Runs every measurement.
 *
 * @param {{ agentwire: object, log: (name: string, figures: object) => void }} options
 */
export async function run({ agentwire, log }) {
  if (typeof agentwire.init === "function") await agentwire.init();
  const { Pattern, MessageBody, BodySchema, validatePayload } = agentwire;

  // Pattern matching in JavaScript: one compiled pattern, 10,000 names, one isMatch call each.
  const names = Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? `/sources/${i}` : `/files/src/dir${i % 17}/file${i}.rs`));
  for (const source of ["/sources/*", "/files/**/*.{rs,py}", "/**"]) {
    const p = new Pattern(source);
    let hits = 0;
    const ms = await median(() => {
      hits = 0;
      for (const n of names) if (p.isMatch(n)) hits++;
    });
    log(`Pattern.isMatch ${source} × ${names.length} names`, { medianMs: round(ms), nsPerMatch: round((ms * 1e6) / names.length), matches: hits });
    p.free();
  }

  // Pattern matching in Rust: MessageBody.list over a body of 10,000 named parts (one call). With
  // no match (`*.py`) this is the matching alone; with matches it includes handing them to
  // JavaScript.
  const body = new MessageBody(names.map((name) => ({ type: "text", name, contentType: "text/plain", content: "" })));
  for (const source of ["/files/**/*.py", "/sources/*", "/files/**/*.{rs,py}"]) {
    const p = new Pattern(source);
    let found = 0;
    const ms = await median(() => {
      found = body.list(p).length;
    });
    log(`MessageBody.list ${source} over ${names.length} parts`, { medianMs: round(ms), nsPerMatch: round((ms * 1e6) / names.length), matches: found });
    p.free();
  }
  body.free();

  // Pathological patterns: backtracking matchers take exponential time on these; the automaton
  // stays within O(pattern × name).
  const deep = "/a".repeat(500) + "/y"; // 1002 bytes, the longest part name allowed is 1024
  const stars = "/" + "a".repeat(1000);
  for (const [source, name] of [
    ["/**/**/**/**/**/**/**/**/x", deep],
    ["/*a*a*a*a*a*a*a*a*a*a*b", stars],
    ["/{a,a{a,a{a,a{a,a}}}}/**/{a,a}/**/x", deep],
  ]) {
    const p = new Pattern(source);
    let matched = true;
    const ms = await median(() => {
      for (let i = 0; i < 100; i++) matched = p.isMatch(name);
    });
    log(`pathological ${source} against a ${name.length}-byte name`, { medianMs: round(ms / 100), matched });
    p.free();
  }

  // Validating a 10 MB payload (under the default 10 MiB limit), as text and as bytes.
  const text = researcherPayload(10_000_000);
  const bytes = new TextEncoder().encode(text);
  const mb = bytes.length / 1e6;
  const researcher = BodySchema.builtin("researcher");
  let report;
  for (const [what, input, schema] of [
    ["Uint8Array", bytes, null],
    ["Uint8Array, researcher schema", bytes, researcher],
    ["string, researcher schema", text, researcher],
    ["Blob, researcher schema", new Blob([bytes]), researcher],
  ]) {
    const ms = await median(async () => {
      report = await validatePayload(input, schema);
    }, 7);
    if (!report.ok) throw new Error(`the benchmark payload is invalid: ${report.errors[0].message}`);
    log(`validatePayload ${round(mb, 4)} MB (${what})`, { medianMs: round(ms), mbPerSec: round(mb / (ms / 1000)) });
  }
  researcher.free();
}

// Alone: `node js/bench/body.bench.mjs` (after scripts/build.sh).
const main =
  typeof process !== "undefined" &&
  Array.isArray(process.argv) &&
  typeof process.argv[1] === "string" &&
  import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href;
if (main) {
  const agentwire = await import(new URL("../../pkg/node/index.js", import.meta.url).href);
  await run({
    agentwire,
    log: (name, figures) =>
      console.log(
        `${name}: median ${figures.medianMs} ms` +
          (figures.mbPerSec !== undefined ? `, ${figures.mbPerSec} MB/s` : "") +
          (figures.nsPerMatch !== undefined ? `, ${figures.nsPerMatch} ns per name` : ""),
      ),
  });
}
