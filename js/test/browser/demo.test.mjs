// The live demo page in headless Chromium, streaming from the reference server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, newPage } from "./chromium.mjs";
import { root, server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("the demo streams a response: text, tool card, table, image, sources, final status", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/?pace=15`);
  await page.waitForSelector("body[data-ready=true]");
  await page.fill("#prompt", "Will it rain in Paris?");
  await page.click("#send");
  // Streaming is visible before the end: the stop button is enabled while text grows.
  await page.waitForSelector("#stop:not([disabled])");
  await page.waitForSelector("#status[data-status=completed]", { timeout: 20000 });

  const answer = await page.textContent("article[data-type=message] .text");
  assert.equal(answer, "You asked: “Will it rain in Paris?”. In Paris it is 21 °C and sunny today.");
  const card = await page.textContent("article[data-type=function_call]");
  assert.match(card, /Tool call: get_weather/);
  assert.match(card, /\{"city": "Paris", "unit": "celsius"\}/);
  assert.match(card, /→ \{"temp_c": 21, "sky": "sunny"\}/);
  assert.equal(await page.locator("article[data-type=message] table tr").count(), 4);
  assert.match(await page.getAttribute("article[data-type=message] img", "src"), /^data:image\/svg\+xml;base64,/);
  assert.deepEqual(await page.locator("#sources a").allTextContents(), [
    "https://example.com/weather/paris",
    "https://example.org/climate/europe",
  ]);
  assert.equal(await page.textContent("#status"), "Done: completed");
  assert.deepEqual(page.pageErrors, []);
  mkdirSync(join(root, "target"), { recursive: true });
  await page.screenshot({ path: join(root, "target/demo.png"), fullPage: true });
  await page.close();
});

test("the stop button aborts the stream and says so", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/?pace=150`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#send");
  await page.waitForSelector("article[data-type=reasoning] .text");
  await page.click("#stop");
  await page.waitForSelector("#status[data-status=aborted]");
  const partial = await page.textContent("article[data-type=reasoning] .text");
  await page.waitForTimeout(600);
  assert.equal(await page.textContent("article[data-type=reasoning] .text"), partial, "nothing renders after stop");
  assert.equal(await page.locator("article[data-type=message]").count(), 0);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("errors are shown clearly", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/?endpoint=/no-such-agent`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#send");
  await page.waitForSelector("#status[data-status=error]");
  const error = await page.textContent("#errors .error");
  assert.match(error, /^http-status: the server answered HTTP 4\d\d/);
  await page.close();
});

test("hostile URLs are not rendered: a javascript: image gets no src, a javascript: source no link", async () => {
  const page = await newPage(browser);
  let dialogs = 0;
  page.on("dialog", (d) => { dialogs++; d.dismiss(); });
  await page.goto(`${server()}/?hostile=1`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#send");
  await page.waitForSelector("#status[data-status=completed]");
  assert.equal(await page.getAttribute("article[data-type=message] img", "src"), null);
  const hrefs = await page.locator("#sources a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert.deepEqual(hrefs, ["https://example.org/climate/europe"]);
  assert.equal(await page.textContent("#sources li:first-child"), "javascript:alert(document.cookie)", "shown as text");
  await page.click("#sources li:first-child");
  assert.equal(dialogs, 0);
  await page.close();
});

/** An Agent API event stream of `events` (each numbered), as the reference server writes one. */
function sse(events) {
  return events.map((e, i) => `id: ${i}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");
}
const response = (status) => ({ object: "response", id: "resp_t", status, output: [] });
const message = (id, status, type = "message") => ({ object: "message", id, type, status, role: "assistant", content: [] });

test("?endpoint= stays on the page's own server, and keeps a query of its own", async () => {
  const page = await newPage(browser);
  const posts = [];
  await page.route("**/*", (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.continue();
    posts.push(request.url());
    return route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: sse([response("created"), response("completed")]) });
  });
  const origin = new URL(server()).origin;
  // A value that is not a path of this server (another host once joined to the origin, a
  // network-path reference, an absolute URL) falls back to /process; a path keeps its query.
  for (const [endpoint, expected] of [
    [".evil.example/agent", `${origin}/process?pace_ms=5`],
    ["//evil.example/agent", `${origin}/process?pace_ms=5`],
    ["https://evil.example/agent", `${origin}/process?pace_ms=5`],
    ["/process?fault=close-after:3", `${origin}/process?fault=close-after%3A3&pace_ms=5`],
  ]) {
    await page.goto(`${server()}/?pace=5&endpoint=${encodeURIComponent(endpoint)}`);
    await page.waitForSelector("body[data-ready=true]");
    await page.fill("#prompt", "a secret question");
    await page.click("#send");
    await page.waitForSelector("#status[data-status=completed]", { timeout: 10000 });
    assert.equal(posts.at(-1), expected, endpoint);
  }
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("a data table replaced three times shows the last one", async () => {
  const page = await newPage(browser);
  const table = (v) => ({ object: "content", type: "data", index: 0, msg_id: "m1", delta: false, status: "in_progress", data: { v } });
  await page.route("**/process*", (route) =>
    route.fulfill({
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body: sse([response("created"), message("m1", "in_progress"), table("first"), table("second"), table("third"), message("m1", "completed"), response("completed")]),
    }),
  );
  await page.goto(`${server()}/`);
  await page.waitForSelector("body[data-ready=true]");
  await page.fill("#prompt", "a table");
  await page.click("#send");
  await page.waitForSelector("#status[data-status=completed]", { timeout: 10000 });
  assert.deepEqual(await page.locator("article[data-type=message] table").allTextContents(), ['v"third"']);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
