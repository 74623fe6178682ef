// The native side of the profile (run.mjs's `native` group): builds examples/bench_stream.rs with
// the release profile (as the wasm module: agentwire-core at opt-level 3, the rest of the library at
// "z") and with opt-level 3 throughout, times each stage, and, when
// valgrind is installed, counts each stage's instructions with callgrind (a count does not depend
// on the machine's load, unlike a time) and lists the functions that execute most of them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { benchDir, root } from "./paths.mjs";

// Counted stages (response-json builds its input in its first run, so its count would be wrong).
const STAGES = ["sse", "json-skip", "json-value", "event-parse", "assemble-events", "final-only", "per-event", "per-event-json", "batch"];
const corpus = join(benchDir, "corpus.sse");
const say = (...a) => console.error("bench:", ...a);
const has = (cmd) => {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

function build(name, env, targetDir) {
  say(`building examples/bench_stream.rs (${name})`);
  execFileSync("cargo", ["build", "--quiet", "--release", "-p", "agentwire-wasm", "--example", "bench_stream"], {
    cwd: root,
    env: { ...process.env, ...env, ...(targetDir ? { CARGO_TARGET_DIR: targetDir } : {}) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  return join(targetDir ?? join(root, "target"), "release/examples/bench_stream");
}

/** Instructions executed by `stage` once: (check run + one timed run − set-up only) / 2. */
function instructions(bin, stage, outDir) {
  const out = join(outDir, `${stage}.callgrind`);
  execFileSync("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, bin, corpus, "1", stage], { stdio: "ignore" });
  const total = Number(/^summary:\s*(\d+)/m.exec(readFileSync(out, "utf8"))?.[1] ?? readFileSync(out, "utf8").match(/^totals:\s*(\d+)/m)?.[1]);
  return { total, file: out };
}

function topSelf(file, n) {
  const text = execFileSync("callgrind_annotate", [file], { maxBuffer: 64 * 1024 * 1024 }).toString();
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /file:function/.test(l));
  return lines.slice(start + 2, start + 2 + n).map((l) => l.replace(/\s*\[\/.*\]$/, "").replace(/\?\?\?:/, "").trim()).filter(Boolean);
}

export function runNative({ callgrind = has("valgrind") } = {}) {
  if (!existsSync(corpus)) throw new Error("no corpus: run the bench once");
  const meta = JSON.parse(readFileSync(join(benchDir, "corpus.json"), "utf8"));
  const builds = {
    // As the wasm module is built: agentwire-core and the linking crate at 3, the library at "z".
    "release profile": build("release profile", {}, null),
    "opt-level 3 throughout": build("opt-level 3 throughout", { CARGO_PROFILE_RELEASE_OPT_LEVEL: "3" }, join(benchDir, "native-o3")),
  };
  const result = {};
  for (const [name, bin] of Object.entries(builds)) {
    console.log(`\nNative ${name} (${relative(root, bin)}), 7 runs per stage:`);
    const out = execFileSync(bin, [corpus, "7"]).toString();
    console.log(out.replace(/^/gm, "  ").trimEnd());
    result[name] = { times: out };
    if (!callgrind) continue;
    const dir = join(benchDir, "callgrind", name.startsWith("opt-level 3") ? "o3" : "release");
    mkdirSync(dir, { recursive: true });
    say(`callgrind: counting instructions per stage (${name})`);
    const base = instructions(bin, "none", dir).total;
    console.log(`  instructions per stage (callgrind; per event, per byte of the ${meta.bytes}-byte corpus):`);
    result[name].instructions = {};
    for (const stage of STAGES) {
      const { total, file } = instructions(bin, stage, dir);
      const per = (total - base) / 2;
      result[name].instructions[stage] = per;
      console.log(`    ${stage.padEnd(16)} ${(per / 1e6).toFixed(0).padStart(6)} M  ${(per / meta.events).toFixed(0).padStart(6)}/event  ${(per / meta.bytes).toFixed(1).padStart(5)}/byte`);
      if (stage === "final-only" || stage === "per-event") {
        result[name][`top-${stage}`] = topSelf(file, 20);
        console.log(`      top functions of ${stage} (self instructions, check run + timed run + set-up):`);
        for (const l of result[name][`top-${stage}`]) console.log(`        ${l.slice(0, 150)}`);
      }
    }
  }
  return result;
}
