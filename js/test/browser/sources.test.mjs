// The main demo's sources panel, fed by stream.onPart("/sources/*"), shows the sources while the
// response is still streaming (the reference agent pauses 150 ms after each source).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./chromium.mjs";
import { server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("the sources panel shows both sources before the response completes", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/?pace=150`);
  await page.waitForSelector("body[data-ready=true]");
  // Record, in the page, the status at the moment the second source appears (a MutationObserver
  // runs right after the DOM change, before any later network chunk is handled).
  await page.evaluate(() => {
    window.statusAtSources = new Promise((resolve) => {
      const sources = document.getElementById("sources");
      new MutationObserver(() => {
        if (sources.querySelectorAll("a").length === 2) resolve(document.getElementById("status").dataset.status);
      }).observe(sources, { childList: true, subtree: true });
    });
  });
  await page.click("#send");
  const status = await page.evaluate(() => window.statusAtSources);
  assert.notEqual(status, "completed");
  assert.equal(status, "in_progress");
  assert.deepEqual(await page.locator("#sources a").allTextContents(), [
    "https://example.com/weather/paris",
    "https://example.org/climate/europe",
  ]);
  await page.waitForSelector("#status[data-status=completed]", { timeout: 20000 });
  assert.equal(await page.locator("#sources a").count(), 2);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
