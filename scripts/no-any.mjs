// Rewrites `any` to `unknown` in type positions of wasm-bindgen's generated .d.ts files (the raw
// export signatures of InitOutput use `any` for externref values). Doc comments are left alone.
// Usage: node scripts/no-any.mjs FILE...
import { readFileSync, writeFileSync, existsSync } from "node:fs";

// After `:`, `(`, `<`, `|`, `,` or a function type's `=>` (`readonly _ec: (a: number) => any;`).
const typeAny = /(?<=(?:[:(<|,]|=>)\s?)any(?=\s*[,;)>\]|=])/g;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(typeAny, "unknown");
  if (fixed !== text) writeFileSync(file, fixed);
}
