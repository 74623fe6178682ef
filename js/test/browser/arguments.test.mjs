// Arguments of the wrong type in headless Chromium, where wasm-bindgen's glue would read a number
// or an object given for a string as an empty string: they throw `invalid-argument` instead. And a
// wasm object used after free() or from inside its own method: typed errors from the web glue.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./chromium.mjs";
import { server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** What `fn` returns, run in a fresh page of the reference server; the page must throw nothing. */
async function inPage(fn) {
  const page = await newPage(browser);
  await page.goto(`${server()}/upload.html`);
  const result = await page.evaluate(fn);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
  return result;
}

test("a number or an object given for a string throws invalid-argument in the browser", async () => {
  const result = await inPage(async () => {
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
});

test("a wasm object used after free() or from inside its own method throws a typed error in the browser", async () => {
  const result = await inPage(async () => {
    const { default: init, Pattern, SseDecoder } = await import("/pkg/web/index.js");
    await init();
    const code = (f) => {
      try {
        f();
        return "no error";
      } catch (e) {
        return `${e.constructor.name} ${e.code}`;
      }
    };
    const p = new Pattern("/a/*");
    p.free();
    const freed = code(() => p.isMatch("/a/b"));
    // An array of byte values whose first element is a getter that uses the decoder reading it.
    const d = new SseDecoder();
    const bytes = [...new TextEncoder().encode("data: x\n\n")];
    let inner;
    Object.defineProperty(bytes, 0, { get: () => ((inner = code(() => d.feed(new Uint8Array([10])))), 100) });
    const items = d.feed(bytes).map((i) => i.data);
    d.free();
    return { freed, inner, items, again: code(() => d.free()) };
  });
  assert.deepEqual(result, {
    freed: "ProtocolError object-freed",
    inner: "ProtocolError object-in-use",
    items: ["x"],
    again: "no error",
  });
});
