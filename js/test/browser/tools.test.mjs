// The tools demo page (examples/demo/tools.html) in headless Chromium, against the reference
// server: the tool cards' states (streaming arguments → called → valid / invalid → result), the
// arguments rendered while they stream, the AgentX self-correction, and the final texts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, newPage } from "./chromium.mjs";
import { root, server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("the chat demo links to the tools demo", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/`);
  await page.click("#tools-link");
  await page.waitForSelector("body[data-ready=true]");
  assert.match(page.url(), /\/tools\.html$/);
  assert.equal(await page.textContent("h1"), "agentwire · tools");
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("Agent API: get_time's card streams its arguments, is validated, runs in the page, and the agent answers with its result", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/tools.html?pace=40`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#run-agent");
  // While the arguments stream, the card shows the partial value (an open string included).
  const streaming = await page.waitForSelector("#agent-transcript .tool-card[data-state=streaming] .args .json-string");
  const partial = await page.textContent("#agent-transcript .tool-card .args");
  assert.ok(streaming);
  await page.waitForSelector("#agent-status[data-status=completed]", { timeout: 20000 });

  const card = page.locator("#agent-transcript .tool-card");
  assert.equal(await card.count(), 1);
  assert.equal(await card.getAttribute("data-history"), "streaming called valid result");
  assert.equal(await card.getAttribute("data-state"), "result");
  assert.ok(Number(await card.getAttribute("data-deltas")) >= 10, "one update per delta");
  assert.equal(await card.locator(".title").textContent(), "Tool call: get_time");
  const args = await card.locator(".args").textContent();
  assert.equal(args, 'timezone:"Europe/Paris"format:"HH:mm"reason:"The user asked for the time in Paris."');
  assert.ok(partial.length < args.length, `partial: ${partial}`);
  const result = await card.locator(".result").textContent();
  const m = result.match(/^→ \{"time":"(\d\d:\d\d)","timezone":"(Europe\/Paris|UTC)"\}$/);
  assert.ok(m, result);
  const answer = await page.textContent("#agent-transcript article[data-type=message] .text");
  assert.equal(answer, `It is ${m[1]} in ${m[2]}.`);
  assert.equal(await page.textContent("#agent-status"), "Done: completed");
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("AgentX: the VALIDATION error goes back, the agent corrects its call, the page writes the file", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/tools.html?pace=15`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#run-agentx");
  await page.waitForSelector("#agentx-status[data-status=completed]", { timeout: 20000 });

  const cards = page.locator("#agentx-transcript .tool-card");
  assert.equal(await cards.count(), 2);
  const wording = "Validation failed for tool 'write_file': Missing required argument 'path'.";
  const first = cards.nth(0);
  assert.equal(await first.getAttribute("data-history"), "called invalid");
  assert.match(await first.getAttribute("data-call-id"), /^tc_[0-9a-f]{32}$/);
  assert.equal(await first.locator(".args").textContent(), 'content:"Hello, world!"');
  assert.equal(await first.locator(".state").textContent(), `invalid: ${wording} · error sent back`);
  assert.equal(await first.locator(".result").textContent(), `VALIDATION: ${wording}`);
  const second = cards.nth(1);
  assert.equal(await second.getAttribute("data-history"), "called valid result");
  assert.equal(await second.locator(".args").textContent(), 'path:"/hello.txt"content:"Hello, world!"');
  assert.equal(await second.locator(".result").textContent(), '→ {"status":"success","bytes":13}');

  assert.deepEqual(await page.locator("#agentx-transcript article[data-type=message] .text").allTextContents(), [
    "Sure, I can write that file for you. I will now call the tool.",
    "My apologies, I missed a required parameter. I will correct it now.",
    "I have successfully written the file to `/hello.txt`.",
  ]);
  // Text, card, text, card, text: the transcript in stream order.
  const order = await page.$$eval("#agentx-transcript > article", (as) => as.map((a) => (a.classList.contains("tool-card") ? "card" : "text")));
  assert.deepEqual(order, ["text", "card", "text", "card", "text"]);
  assert.deepEqual(await page.locator("#files li").allTextContents(), ["/hello.txt (13 characters)"]);
  // Both flows side by side for the screenshot.
  await page.click("#run-agent");
  await page.waitForSelector("#agent-status[data-status=completed]", { timeout: 20000 });
  assert.deepEqual(page.pageErrors, []);
  mkdirSync(join(root, "target"), { recursive: true });
  await page.screenshot({ path: join(root, "target/tools-demo.png"), fullPage: true });
  await page.close();
});

test("a tool card shows nested arguments as they stream (objects and arrays inside the arguments)", async () => {
  const page = await newPage(browser);
  const args = '{"timezone": "Europe/Paris", "options": {"format": "HH:mm"}, "cities": ["Paris", "Rome"], "__proto__": 1}';
  const content = (data, extra = {}) => ({ object: "content", type: "data", index: 0, msg_id: "fc1", delta: true, status: "in_progress", data, ...extra });
  const events = [
    { object: "response", id: "resp_t", status: "created", output: [] },
    { object: "message", id: "fc1", type: "function_call", status: "in_progress", role: "assistant", content: [] },
    content({ call_id: "c1", name: "lookup", arguments: "" }),
  ];
  for (let i = 0; i < args.length; i += 6) events.push(content({ arguments: args.slice(i, i + 6) }));
  events.push(content({ call_id: "c1", name: "lookup", arguments: args }, { delta: false, status: "completed" }));
  events.push({ object: "message", id: "fc1", type: "function_call", status: "completed", role: "assistant", content: [] });
  events.push({ object: "response", id: "resp_t", status: "completed", output: [] });
  let posts = 0;
  await page.route("**/process*", (route) => {
    posts += 1;
    const body = (posts === 1 ? events : [events[0], events.at(-1)]).map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    return route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body });
  });
  await page.goto(`${server()}/tools.html`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#run-agent");
  await page.waitForSelector("#agent-status[data-status=completed]", { timeout: 10000 });
  const shown = await page.textContent("#agent-transcript .tool-card .args");
  assert.equal(shown, 'timezone:"Europe/Paris"options:format:"HH:mm"cities:0:"Paris"1:"Rome"__proto__:1');
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
