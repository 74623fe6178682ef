// The demo's upload page in headless Chromium: a valid and an invalid file picked with
// setInputFiles, a file dropped, the schema chosen, and the rendered report; and the main demo's
// sources panel filled while the response is still streaming.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, newPage } from "./chromium.mjs";
import { root, server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

const file = (name, text) => ({ name, mimeType: "application/json", buffer: Buffer.from(text) });

const researcherAnswer = JSON.stringify(
  {
    parts: [
      { type: "text", contentType: "text/markdown", content: "# Findings\nTwo sources agree." },
      { type: "text", name: "/sources/1", contentType: "text/x-uri", content: "https://example.org/a" },
      { type: "text", name: "/sources/2", contentType: "text/x-uri", content: "https://example.org/b" },
    ],
  },
  null,
  2,
);

async function openUpload() {
  const page = await newPage(browser);
  await page.goto(`${server()}/upload.html`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/** The rendered problems: [code, text of the location]. */
const problems = (page) =>
  page.$$eval("#problems li", (lis) => lis.map((li) => [li.dataset.code, li.querySelector(".where")?.textContent ?? ""]));

test("the main page links to the upload page, which offers the four built-in schemas", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#upload-link");
  await page.waitForSelector("body[data-ready=true]");
  assert.match(page.url(), /\/upload\.html$/);
  const options = await page.$$eval("#schema option", (os) => os.map((o) => o.value));
  assert.deepEqual(options, ["", "chat", "multi-modal-chat", "software-writing", "researcher"]);
  assert.match(await page.textContent("#schema option[value=researcher]"), /\/sources\/\* text\/x-uri/);
  assert.match(await page.textContent("#limits"), /10 MiB per file/);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("a valid file: the report says ok and lists the parts", async () => {
  const page = await openUpload();
  await page.selectOption("#schema", "researcher");
  await page.setInputFiles("#file", file("answer.json", researcherAnswer));
  await page.waitForSelector("#report[data-state=done]");
  assert.equal(await page.getAttribute("#report", "data-ok"), "true");
  assert.equal(await page.textContent("#summary"), "answer.json is a valid message against the researcher schema.");
  assert.deepEqual(await problems(page), []);
  const rows = await page.$$eval("#parts tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows, [
    ["0", "(main content)", "text", "text/markdown"],
    ["1", "/sources/1", "text", "text/x-uri"],
    ["2", "/sources/2", "text", "text/x-uri"],
  ]);
  // The same file against the chat schema: the write-up is markdown and sources are not allowed.
  await page.selectOption("#schema", "chat");
  await page.waitForSelector("#report[data-ok=false]");
  assert.deepEqual(await problems(page), [
    ["content-type-mismatch", "part 0 (unnamed) · line 3, column 5"],
    ["unexpected-part", "part 1 (/sources/1) · line 8, column 5"],
    ["unexpected-part", "part 2 (/sources/2) · line 14, column 5"],
    ["missing-required-part", "schema part 0 (unnamed parts)"],
  ]);
  assert.equal(await page.isHidden("#parts"), true);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("an invalid file: a syntax error with its line and column; part errors with index and name", async () => {
  const page = await openUpload();
  await page.setInputFiles("#file", file("broken.json", '{"parts": [\n  {"content": "hi",}\n]}'));
  await page.waitForSelector("#report[data-ok=false]");
  assert.equal(await page.textContent("#summary"), "broken.json: 1 problem.");
  assert.deepEqual(await problems(page), [["invalid-json", "line 2, column 20"]]);
  assert.match(await page.textContent("#problems li"), /not valid JSON \(line 2, column 20\)/);

  const named = '{"parts": [\n  {"content": "hi"},\n  {"name": "/notes/../secret", "content": "x"},\n  {"name": "/a", "content": "1", "contentUrl": "https://x"}\n]}';
  await page.setInputFiles("#file", file("names.json", named));
  await page.waitForSelector("#summary >> text=names.json");
  assert.deepEqual(await problems(page), [
    ["invalid-part-name", "part 1 (/notes/../secret) · line 3, column 3"],
    ["content-and-url", "part 2 (/a) · line 4, column 3"],
  ]);
  assert.match(await page.textContent("#problems li[data-code=invalid-part-name]"), /"\." or "\.\." segment/);
  mkdirSync(join(root, "target"), { recursive: true });
  await page.screenshot({ path: join(root, "target/upload.png"), fullPage: true });
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("a dropped file is checked too, and agent data is rendered as text, never as HTML", async () => {
  const page = await openUpload();
  const hostile = JSON.stringify({ parts: [{ name: "/<img src=x onerror=alert(1)>", content: "x" }] });
  const dataTransfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "dropped.json", { type: "application/json" }));
    return dt;
  }, hostile);
  await page.dispatchEvent("#drop", "drop", { dataTransfer });
  await page.waitForSelector("#report[data-ok=false]");
  assert.equal(await page.textContent("#summary"), "dropped.json: 1 problem.");
  assert.equal(await page.locator("#report img").count(), 0);
  assert.match(await page.textContent("#problems .where"), /part 0 \(\/<img src=x onerror=alert\(1\)>\)/);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
