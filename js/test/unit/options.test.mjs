// Every member of every options object is read under the name its TypeScript type declares: the
// options are read by hand in Rust (json::Fields, each member by name), so a misspelt name would
// be ignored silently. For each member the .d.ts declares, a value of the wrong type must be
// refused with `invalid-argument`; an unknown member is ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, pkgDir } from "../helpers.mjs";

const aw = await agentwire();
const dts = readFileSync(join(pkgDir, "node/agentwire.d.ts"), "utf8");

/** The member names of `interface name` in the generated .d.ts. */
function members(name) {
  const lines = dts.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`export interface ${name} {`));
  assert.notEqual(start, -1, `interface ${name} in the .d.ts`);
  const names = [];
  for (const line of lines.slice(start + 1)) {
    if (line === "}") break;
    const m = /^ {4}(\w+)\??:/.exec(line);
    if (m) names.push(m[1]);
  }
  assert.ok(names.length > 0, `members of ${name}`);
  return names;
}

const baseUrl = "http://127.0.0.1:9";

/** Each options type, a value of it with its required members, and a call that reads it. */
const readers = {
  AgentClientConfig: [{ baseUrl }, (o) => new aw.AgentClient(o)],
  ResumeConfig: [{}, (o) => new aw.AgentClient({ baseUrl, resume: o })],
  AgentxClientConfig: [{ baseUrl }, (o) => new aw.AgentxClient(o)],
  AcpClientConfig: [{ baseUrl }, (o) => new aw.AcpClient(o)],
  SseDecoderOptions: [{}, (o) => new aw.SseDecoder(o)],
  StreamOptions: [{}, (o) => new aw.AgentStreamDecoder(o)],
  AgentxStreamOptions: [{}, (o) => new aw.AgentxStreamDecoder(o)],
  RunSessionConfig: [{}, (o) => new aw.RunSession("chat", o)],
  AcpRunConfig: [
    { signal: AbortSignal.abort() },
    (o) => new aw.AcpClient({ baseUrl }).run("echo", "hi", o).run.catch(() => {}),
  ],
};

for (const [type, [required, read]] of Object.entries(readers)) {
  test(`${type}: every declared member is read by its name`, () => {
    read({ ...required, x_unknown: [1] });
    for (const name of members(type)) {
      assert.throws(
        () => read({ ...required, [name]: [1] }),
        (e) => e instanceof aw.ProtocolError && e.code === "invalid-argument",
        `${type}.${name} given an array`,
      );
    }
  });
}
