// Arguments of the wrong type in headless Chromium, where wasm-bindgen's glue would read a number
// or an object given for a string as an empty string: they throw `invalid-argument` instead.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./chromium.mjs";
import { server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a number or an object given for a string throws invalid-argument in the browser", async () => {
  const page = await newPage(browser);
  await page.goto(`${server()}/upload.html`);
  const result = await page.evaluate(async () => {
    const { default: init, RequestBuilder, ProtocolError } = await import("/pkg/web/index.js");
    await init();
    const b = new RequestBuilder().text("user", "kept");
    const tries = {};
    for (const [name, value] of [["number", 42], ["object", { text: "hi" }]]) {
      try {
        b.text("user", value);
        tries[name] = "no error";
      } catch (e) {
        tries[name] = `${e instanceof ProtocolError} ${e.code} ${e.details.reason}`;
      }
    }
    return { tries, texts: b.build().input[0].content.map((c) => c.text) };
  });
  assert.deepEqual(result.tries, {
    number: "true invalid-argument expected a string, got number",
    object: "true invalid-argument expected a string, got object",
  });
  assert.deepEqual(result.texts, ["kept"], "nothing was added");
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
