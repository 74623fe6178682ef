// Cleans the doc comments that wasm-bindgen and tsify copy from the Rust sources into the generated
// .d.ts, for TypeScript readers:
// - rustdoc's intra-doc links become their text: "[`extra`](Self::extra)" is "`extra`",
//   "[module documentation](self)" is "module documentation", "[`Move`]" is "`Move`"; links to a
//   URL or an anchor ("(https://…)", "(#…)") are kept;
// - Rust examples (a fenced block without a language, or `rust`: rustdoc's doctests) are dropped,
//   with the blank line before them; `json`, `js` and `ts` blocks are kept.
// Everything outside doc comments is left alone.
// Usage: node scripts/dts-docs.mjs FILE...
import { readFileSync, writeFileSync, existsSync } from "node:fs";

// A rustdoc path: `self`, `crate::a::B`, `Self::x`, `super::T::f`, `ErrorCode::code`, `f#steps`.
const rustLink = /\[([^\]\n]+)\]\([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?(?:#[\w-]+)?\)/g;
// "[`Move`]" with no target (a reference-style intra-doc link) keeps its code span.
const bareLink = /\[(`[^`\n]+`)\](?![([])/g;
// " *\n * ```\n … * ```\n" or " * ```rust …": a doctest, with the blank doc line before it.
const rustExample = /(?:^[ \t]*\*[ \t]*\n)?^[ \t]*\* ```(?:rust)?[ \t]*\n(?:^[ \t]*\*(?! ```).*\n)*?^[ \t]*\* ```[ \t]*\n/gm;

function cleanDocs(text) {
  return text.replace(/\/\*\*[\s\S]*?\*\//g, (doc) =>
    doc.replace(rustExample, "").replace(rustLink, "$1").replace(bareLink, "$1"),
  );
}

for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, "utf8");
  const fixed = cleanDocs(text);
  if (fixed !== text) writeFileSync(file, fixed);
}
