// The reference server's own edges (examples/reference_server): what it refuses, and that the ACP
// runs it keeps stay bounded. Plain `fetch`, no agentwire: these are the server's behaviours the
// demo and the other tests rely on. The bound is tested on a server of its own (started here with
// `--max-acp-runs 3`), so that its cancels cannot touch the other tests' runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { root, server } from "../helpers.mjs";

const post = (base, path, body) =>
  fetch(new URL(path, base), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const userText = (text) => ({ role: "user", parts: [{ content_type: "text/plain", content: text }] });

/** Starts target/debug/examples/reference_server (built by the test command) on a free port. */
async function ownServer(args) {
  const child = spawn(join(root, "target/debug/examples/reference_server"), ["--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
    createInterface({ input: child.stdout }).once("line", resolve);
  });
  const url = /http:\/\/[^/ ]+\//.exec(line)?.[0];
  assert.ok(url, `the server's first line names its address: ${line}`);
  return { url, stop: () => child.kill() };
}

test("POST /process with an unknown ?agent= is 404, not the default agent", async () => {
  const r = await post(server(), "/process?agent=nope&pace_ms=0", { input: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  assert.equal(r.status, 404);
  assert.match(await r.text(), /no agent `nope`/);
  const ok = await post(server(), "/process?agent=tools&pace_ms=0", { input: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  assert.equal(ok.status, 200);
  await ok.body.cancel();
});

test("ACP: a mode the protocol does not have is 422 invalid_input, on create and on resume", async () => {
  const bad = await post(server(), "/acp/runs", { agent_name: "approval", input: [userText("deploy")], mode: "batch" });
  assert.equal(bad.status, 422);
  const error = await bad.json();
  assert.equal(error.code, "invalid_input");
  assert.match(error.message, /'batch'/);

  const created = await post(server(), "/acp/runs?pace_ms=0", { agent_name: "approval", input: [userText("deploy")], mode: "sync" });
  const run = await created.json();
  assert.equal(run.status, "awaiting");
  const resume = (mode) => post(server(), `/acp/runs/${run.run_id}`, { run_id: run.run_id, await_resume: { type: "message", message: userText("yes") }, mode });
  const refused = await resume("later");
  assert.equal(refused.status, 422);
  assert.equal((await refused.json()).code, "invalid_input");
  // The refused resume did not consume the run's wait: a good one still resumes it.
  const done = await (await resume("sync")).json();
  assert.equal(done.status, "completed");
  assert.match(done.output[0].parts.map((p) => p.content).join(""), /Approved/);
});

test("ACP: past --max-acp-runs, the oldest runs left awaiting are cancelled and forgotten", async (t) => {
  const { url, stop } = await ownServer(["--pace-ms", "0", "--max-acp-runs", "3"]);
  t.after(stop);
  const start = async () => (await (await post(url, "/acp/runs", { agent_name: "approval", input: [userText("deploy")], mode: "sync" })).json()).run_id;
  const status = async (id) => {
    const r = await fetch(new URL(`/acp/runs/${id}`, url));
    return r.status === 200 ? (await r.json()).status : r.status;
  };
  const ids = [await start(), await start(), await start()];
  assert.deepEqual(await Promise.all(ids.map(status)), ["awaiting", "awaiting", "awaiting"]);

  // One run ends, so the next start makes room by forgetting it, not an awaiting one.
  const resumed = await post(url, `/acp/runs/${ids[1]}`, { run_id: ids[1], await_resume: { type: "message", message: userText("no") }, mode: "sync" });
  assert.equal((await resumed.json()).status, "completed");
  const fourth = await start();
  assert.deepEqual(await Promise.all([...ids, fourth].map(status)), ["awaiting", 404, "awaiting", "awaiting"]);

  // Full of awaiting runs: the oldest awaiting one goes, cancelled.
  const fifth = await start();
  assert.deepEqual(await Promise.all([ids[0], ids[2], fourth, fifth].map(status)), [404, "awaiting", "awaiting", "awaiting"]);
  const sixth = await start();
  assert.deepEqual(await Promise.all([ids[2], fourth, fifth, sixth].map(status)), [404, "awaiting", "awaiting", "awaiting"]);
});
