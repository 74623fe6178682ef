// Shared by the JavaScript tests: where things are, and the built package.
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The built package: pkg/, or AGENTWIRE_PKG (a feature build, see scripts/build.sh). */
export const pkgDir = process.env.AGENTWIRE_PKG ? resolve(root, process.env.AGENTWIRE_PKG) : join(root, "pkg");
export const shared = process.env.AGENTWIRE_SHARED ?? resolve(root, "../shared");

/** The reference server the test command started. */
export function server() {
  const url = process.env.AGENTWIRE_SERVER;
  if (!url) throw new Error("AGENTWIRE_SERVER is not set: run the tests with scripts/test.sh");
  return url;
}

/** The built package's Node entry (what `import "agentwire"` gives in Node). */
export function agentwire() {
  return import(join(pkgDir, "node/index.js"));
}

/** GET a JSON document. */
export async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value or `ms` pass. */
export async function eventually(check, ms = 5000, what = "condition") {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The items of an async iterable, or rejects with its error; rejects if it has not finished
 * within `ms` (an iterator that waits forever would otherwise end the test run silently).
 */
export async function collect(iterable, ms = 2000) {
  let timer;
  const items = [];
  const all = (async () => {
    for await (const item of iterable) items.push(item);
    return items;
  })();
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the iteration did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([all, late]);
  } finally {
    clearTimeout(timer);
  }
}
