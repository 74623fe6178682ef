// Where the bench finds things (Node only).
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, "../..");
/** Generated inputs and outputs: the corpora, the anchors' copy, results, size builds. */
export const benchDir = join(root, "target/bench");
export const shared = process.env.AGENTWIRE_SHARED ?? resolve(root, "../shared");
