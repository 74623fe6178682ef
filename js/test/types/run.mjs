// Type tests: (1) the public API type-checks as documented (api.test.ts, strict tsc, with
// @ts-expect-error for what must not compile); (2) no shipped .d.ts declares `any`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { root, pkgDir } from "../helpers.mjs";

execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "js/test/types/tsconfig.json")], { stdio: "inherit" });
console.log("types: api.test.ts type-checks");

const found = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith(".d.ts")) {
      // `any` as a type (not inside comments).
      const code = readFileSync(p, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      for (const m of code.matchAll(/(?:[:<(|,]|=>)\s*any\b(?!\w)/g)) found.push(`${p}: ${m[0]}`);
    }
  }
};
walk(pkgDir);
if (found.length) {
  console.error("`any` in the package's declarations:\n" + found.join("\n"));
  process.exit(1);
}
console.log("types: no `any` in any .d.ts of pkg/");
