// Type tests: (1) the public API type-checks as documented (api.test.ts, strict tsc, with
// @ts-expect-error for what must not compile); (2) no shipped .d.ts declares `any`; (3) their doc
// comments (copied from the Rust sources by wasm-bindgen and tsify) hold no Rust syntax: no
// rustdoc links, Rust paths, `None` or Rust examples; (4) the README's examples (the blocks marked
// `<!-- readme-example… -->`, which the unit tests run) type-check as TypeScript with the same
// strict options, as a TypeScript app would paste them.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, pkgDir } from "../helpers.mjs";

const tsc = join(root, "node_modules/.bin/tsc");
execFileSync(tsc, ["-p", join(root, "js/test/types/tsconfig.json")], { stdio: "inherit" });
console.log("types: api.test.ts type-checks");

const readme = readFileSync(join(root, "README.md"), "utf8");
const examples = [...readme.matchAll(/<!-- readme-example(?:: ([\w-]+))? -->\s*```js\n([\s\S]*?)```/g)];
if (examples.length < 2) throw new Error(`expected the README's examples, found ${examples.length}`);
const dir = join(root, "target/readme-types");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const files = examples.map(([, name = "use", code]) => {
  const file = `readme-${name}.ts`;
  // Each file a module of its own (`export {}`), importing the built package as an app would.
  writeFileSync(join(dir, file), code.replace(/from "agentwire"/g, `from ${JSON.stringify(join(pkgDir, "web/index.js"))}`) + "\nexport {};\n");
  return file;
});
writeFileSync(
  join(dir, "tsconfig.json"),
  JSON.stringify({ extends: join(root, "js/test/types/tsconfig.json"), compilerOptions: { noUnusedLocals: false }, files }),
);
execFileSync(tsc, ["-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
console.log(`types: the README's ${files.length} examples type-check (${files.join(", ")})`);

const found = [];
const rustInDocs = [];
// A rustdoc link "[x](Self::x)", "[x](self)"; a Rust path `Part::Other`, `serde_json`; `None`; a
// fenced block without a language (a doctest).
const rustSyntax = [
  /\]\((?:self|Self|crate|super)\b[^)]*\)/,
  /\]\([A-Z]\w*::\w+\)/,
  /\b[A-Za-z_]\w*::[A-Za-z_]\w*/,
  /`None`|\bserde_json\b/,
];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith(".d.ts")) {
      // `any` as a type (not inside comments).
      const code = readFileSync(p, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      for (const m of code.matchAll(/(?:[:<(|,]|=>)\s*any\b(?!\w)/g)) found.push(`${p}: ${m[0]}`);
      const text = readFileSync(p, "utf8");
      for (const doc of text.match(/\/\*\*[\s\S]*?\*\//g) ?? []) {
        const lines = doc.replace(/https?:\/\/\S+/g, "").split("\n");
        lines.forEach((line, i) => {
          if (rustSyntax.some((re) => re.test(line))) rustInDocs.push(`${p}: ${line.trim()}`);
          // A fence that opens a block (an odd one) must name its language (json, js, ts).
          if (/^\s*\* ```\s*$/.test(line) && lines.slice(0, i).filter((l) => /^\s*\* ```/.test(l)).length % 2 === 0)
            rustInDocs.push(`${p}: a code block without a language (a Rust doctest?)`);
        });
      }
    }
  }
};
walk(pkgDir);
if (found.length) {
  console.error("`any` in the package's declarations:\n" + found.join("\n"));
  process.exit(1);
}
console.log("types: no `any` in any .d.ts of pkg/");
if (rustInDocs.length) {
  console.error("Rust syntax in the package's doc comments:\n" + rustInDocs.join("\n"));
  process.exit(1);
}
console.log("types: no Rust syntax in the doc comments of pkg/'s .d.ts");
