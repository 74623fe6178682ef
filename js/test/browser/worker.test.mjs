// The package in a module Web Worker in headless Chromium: `agentwire/web` loads its wasm module
// there (`init()` finds it next to the glue, from `import.meta.url`), streams from the reference
// server with fetch, and the worker posts the updates to the page, as an app that keeps the
// stream off the main thread does.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./chromium.mjs";
import { server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

// The worker's module. Import maps do not reach workers, so it imports the package by URL.
const workerSource = (origin) => `
import init, { AgentClient, RequestBuilder, ProtocolError } from "${origin}/pkg/web/index.js";

self.onmessage = async ({ data: { prompt, abortAfter } }) => {
  const post = (m) => self.postMessage(m);
  try {
    try { new RequestBuilder(); } catch (e) { post({ type: "before-init", code: e.code, isProtocolError: e instanceof ProtocolError }); }
    await init();
    const controller = new AbortController();
    let deltas = 0;
    const stream = new AgentClient({ baseUrl: "${origin}" }).stream(new RequestBuilder().text("user", prompt).build(), {
      onTextDelta: (delta) => {
        deltas += 1;
        post({ type: "delta", delta });
        if (deltas === abortAfter) controller.abort();
      },
    }, { signal: controller.signal });
    const response = await stream.response.catch((e) => ({ error: e.code, kept: e.details?.response?.status }));
    post({ type: "done", deltas, status: response.status, error: response.error, kept: response.kept,
      text: response.output?.find((m) => m.type === "message")?.content[0].text });
  } catch (e) {
    post({ type: "error", message: String(e) });
  }
};
`;

async function runInWorker(page, request) {
  return page.evaluate(
    ([source, request]) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
        const messages = [];
        worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
        worker.onmessage = ({ data }) => {
          messages.push(data);
          if (data.type === "done" || data.type === "error") {
            worker.terminate();
            resolve(messages);
          }
        };
        worker.postMessage(request);
      }),
    [workerSource(server()), request],
  );
}

test("a module worker streams a response with agentwire/web and posts its deltas to the page", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/upload.html`);
  const messages = await runInWorker(page, { prompt: "Will it rain in Paris?" });
  assert.deepEqual(messages.find((m) => m.type === "error"), undefined);
  assert.deepEqual(messages[0], { type: "before-init", code: "not-initialized", isProtocolError: true });
  const done = messages.at(-1);
  assert.equal(done.type, "done");
  assert.equal(done.status, "completed");
  const deltas = messages.filter((m) => m.type === "delta").map((m) => m.delta);
  assert.ok(deltas.length > 5, `the text arrives in pieces (${deltas.length})`);
  assert.equal(deltas.length, done.deltas);
  assert.equal(done.text, "You asked: “Will it rain in Paris?”. In Paris it is 21 °C and sunny today.");
  // The deltas are the reasoning's and the answer's text, in order.
  assert.ok(deltas.join("").includes(done.text));
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("a module worker's stream is aborted by its AbortSignal", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/upload.html`);
  const messages = await runInWorker(page, { prompt: "Will it rain in Paris?", abortAfter: 3 });
  const done = messages.at(-1);
  assert.equal(done.type, "done", JSON.stringify(done));
  assert.equal(done.deltas, 3, "no callback runs after the abort");
  assert.equal(done.error, "aborted");
  assert.equal(done.kept, "canceled", "the error holds what was received");
  await page.close();
});
