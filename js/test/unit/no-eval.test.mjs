// No eval, new Function or innerHTML in the shipped package or the demo (agent data must never be
// interpreted as code or markup).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pkgDir, root } from "../helpers.mjs";

function files(dir, ext) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (ext.some((e) => p.endsWith(e))) out.push(p);
  }
  return out;
}

test("the package and the demo use no eval, new Function, innerHTML, outerHTML or document.write", () => {
  const found = [];
  for (const f of [...files(pkgDir, [".js"]), ...files(join(root, "examples/demo"), [".js", ".html"])]) {
    const code = readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const m of code.matchAll(/\beval\s*\(|\bnew\s+Function\b|\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write/g)) {
      found.push(`${f}: ${m[0]}`);
    }
  }
  assert.deepEqual(found, []);
});
