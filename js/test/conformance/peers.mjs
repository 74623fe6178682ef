// Starts the real third-party agent servers of ../shared/peers with their pinned versions.
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { shared } from "../helpers.mjs";

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Starts a peer; resolves with `{ url, stop }`. First use installs it (a minute or two). */
export async function startPeer(name, mode) {
  const port = await freePort();
  const args = [name, String(port)];
  if (mode) args.push(mode);
  const pid = Number(execFileSync(join(shared, "peers/run-peer"), args, { stdio: ["ignore", "pipe", "inherit"] }).toString().trim());
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      try { process.kill(pid); } catch { /* already gone */ }
    },
  };
}

/** A `fetch` that also records the raw response body bytes (to compare with the server's own view). */
export function recordingFetch() {
  const chunks = [];
  const f = async (req) => {
    const res = await fetch(req);
    if (!res.body) return res;
    const [a, b] = res.body.tee();
    // The client may close the request (an abort errors this branch too): what came is kept.
    (async () => { for await (const c of b) chunks.push(c); })().catch(() => {});
    return new Response(a, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  f.bytes = () => Buffer.concat(chunks);
  return f;
}

/** The JSON `data` of every SSE event in `bytes` (a plain parse, independent of agentwire). */
export function sseData(bytes) {
  return bytes.toString("utf8").split(/\r\n\r\n|\n\n|\r\r/).map((block) =>
    block.split(/\r\n|\n|\r/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n"),
  ).filter((d) => d.length > 0).map((d) => JSON.parse(d));
}
