// The packed tarball, installed as a user would: a fresh Node project (running the README's usage
// example), a fresh TypeScript project (type-checked), a fresh Vite app, a fresh webpack app and a
// fresh esbuild app (each built, served, opened in Chromium).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync, rmSync, createReadStream, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { pkgDir, root, server } from "../helpers.mjs";
import { launch, newPage } from "../browser/chromium.mjs";

let work, tarball;
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"] }).toString();
const npm = (args, cwd) => sh("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], cwd);

before(() => {
  work = mkdtempSync(join(tmpdir(), "agentwire-packaging-"));
  const name = sh("npm", ["pack", pkgDir, "--pack-destination", work, "--loglevel=error"], work).trim().split("\n").at(-1);
  tarball = join(work, name);
});
after(() => rmSync(work, { recursive: true, force: true }));

/** The README's usage example (the ```js block after "## Use"). */
function readmeExample() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const m = readme.match(/<!-- readme-example -->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, "README has a usage example marked <!-- readme-example -->");
  return m[1];
}

// What the generated scripts share: the text that one event decoded by an import's decoder gives.
const decodeText = `
  const decodeText = (aw, text) => {
    const d = new aw.AgentStreamDecoder();
    const event = { object: "content", type: "text", index: 0, delta: true, msg_id: "m", text };
    d.feed(new TextEncoder().encode("data: " + JSON.stringify(event) + "\\n\\n"));
    return d.response().output[0].content[0].text;
  };`;

/** A fresh npm project `work/<name>` (with an empty `dist/`) that installs `deps` and the tarball. */
function newApp(name, ...deps) {
  const app = join(work, name);
  mkdirSync(join(app, "dist"), { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  npm(["install", ...deps, tarball], app);
  return app;
}

/**
 * A browser app's script: `imports`, then `body`, which returns the result to show; the helpers
 * `decodeText(aw, text)`, `streamed(aw, text)` (one stream from the reference server: its status
 * and text deltas) and `leftOut(aw)` (the code \`new MessageBody\` throws) are in scope. The result,
 * or the failure, is written to #out, which openApp reads.
 */
const appScript = (imports, body) => `${decodeText}
  ${imports}
  const server = new URLSearchParams(location.search).get("server");
  const streamed = async (aw, text) => {
    let deltas = "";
    const r = await new aw.AgentClient({ baseUrl: server })
      .stream(new aw.RequestBuilder().text("user", text).build(), { onTextDelta: (t) => (deltas += t) }).response;
    return { status: r.status, deltas };
  };
  const leftOut = (aw) => {
    try { new aw.MessageBody([]); return "no error"; } catch (e) { return e.code; }
  };
  const out = document.getElementById("out");
  (async () => { ${body} })().then(
    (result) => (out.textContent = JSON.stringify(result)),
    (e) => (out.textContent = "failed: " + (e.code ?? "") + " " + e.message),
  );`;

test("the tarball holds the three targets, types and wasm, and nothing else", () => {
  const files = sh("tar", ["-tzf", tarball], work).trim().split("\n").map((f) => f.replace(/^package\//, "")).sort();
  for (const f of ["package.json", "README.md", "web/index.js", "web/index.d.ts", "node/index.js", "bundler/index.js",
    "web/agentwire_bg.wasm", "web/agentwire_bg.js"]) assert.ok(files.includes(f), f);
  // node/ and bundler/ load web/'s module (two copies fewer; scripts/build.sh).
  assert.ok(!files.some((f) => /(node|bundler)\/agentwire_bg\.wasm$/.test(f)), "no module in any node/ or bundler/");
  assert.ok(!files.some((f) => f.startsWith("src/") || f.includes("tsconfig")), files.join(" "));
});

test("the smaller entry points: each target of each, the full build's declarations, a smaller module", () => {
  const files = sh("tar", ["-tzf", tarball], work).trim().split("\n").map((f) => f.replace(/^package\//, ""));
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const fullWasm = readFileSync(join(pkgDir, "web/agentwire_bg.wasm")).length;
  for (const [entry, features] of [["agent-api", "agent-api"], ["agentx", "agentx"], ["acp", "acp"], ["atlas", "atlas"]]) {
    assert.ok(pkg.exports[`./${entry}`], `package.json exports ./${entry}`);
    const info = JSON.parse(readFileSync(join(pkgDir, entry, "BUILD_INFO.json"), "utf8"));
    assert.equal(info.features, features);
    for (const t of ["web", "bundler", "node"]) {
      for (const f of ["index.js", "index.d.ts", "agentwire.js", ...(t === "web" ? ["agentwire_bg.wasm"] : [])]) {
        assert.ok(files.includes(`${entry}/${t}/${f}`), `${entry}/${t}/${f}`);
      }
      // The API's declarations are the full build's, file for file.
      for (const f of readdirSync(join(pkgDir, t)).filter((f) => f.endsWith(".d.ts"))) {
        assert.equal(readFileSync(join(pkgDir, entry, t, f), "utf8"), readFileSync(join(pkgDir, t, f), "utf8"), `${entry}/${t}/${f}`);
      }
    }
    const wasm = readFileSync(join(pkgDir, entry, "web/agentwire_bg.wasm")).length;
    assert.ok(wasm < fullWasm * 0.6, `${entry}: ${wasm} bytes against ${fullWasm}`);
  }
});

test("a fresh Node project installs the tarball and runs the README example", () => {
  const app = join(work, "node-app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "node-app", private: true, type: "module" }));
  npm(["install", tarball], app);
  const example = readmeExample().replaceAll("http://127.0.0.1:8787", server());
  writeFileSync(join(app, "example.mjs"), example);
  const out = sh("node", ["example.mjs"], app);
  assert.match(out, /completed/);
  assert.match(out, /You asked: “What is the weather in Paris\?”/);
  // Every documented entry point resolves.
  const check = `
    const a = await import("agentwire"); const n = await import("agentwire/node");
    if (a.AgentClient !== n.AgentClient) throw new Error("node condition");
    await import("agentwire/package.json", { with: { type: "json" } });
    console.log("ok");`;
  writeFileSync(join(app, "entries.mjs"), check);
  assert.equal(sh("node", ["entries.mjs"], app).trim(), "ok");
  // The smaller entry points run in Node (their node/ target), what they left out throws.
  const smaller = `${decodeText}
    const api = await import("agentwire/agent-api");
    const text = decodeText(api, "hi");
    const missing = (f) => { try { f(); return "no error"; } catch (e) { return e.code + " " + e.details?.name; } };
    const x = await import("agentwire/agentx");
    const xd = new x.AgentxStreamDecoder();
    const acp = await import("agentwire/acp");
    const schema = acp.CommunicationSchema.builtin("acpRun");
    const atlas = await import("agentwire/atlas");
    const atlasMessage = atlas.StructuredMessage.fromJSON('{"content": "hi", "task_id": "t"}');
    console.log(JSON.stringify({
      text,
      apiLeftOut: missing(() => new api.MessageBody([])),
      xLeftOut: missing(() => new x.AgentStreamDecoder()),
      xDecoder: typeof xd.feed,
      acpSchema: schema.isTerminal("completed"),
      acpLeftOut: missing(() => new acp.AgentxStreamDecoder()),
      atlasContent: atlasMessage.toBody().main()[0].content,
      atlasLeftOut: missing(() => new atlas.AgentStreamDecoder()),
      distinct: api.AgentStreamDecoder !== (await import("agentwire")).AgentStreamDecoder,
    }));`;
  writeFileSync(join(app, "smaller.mjs"), smaller);
  assert.deepEqual(JSON.parse(sh("node", ["smaller.mjs"], app)), {
    text: "hi",
    apiLeftOut: "feature-not-built MessageBody",
    xLeftOut: "feature-not-built AgentStreamDecoder",
    xDecoder: "function",
    acpSchema: true,
    acpLeftOut: "feature-not-built AgentxStreamDecoder",
    atlasContent: "hi",
    atlasLeftOut: "feature-not-built AgentStreamDecoder",
    distinct: true,
  });
  // The browser targets given their module by the app (`init(input)`): its bytes, a `Response`, a
  // compiled module; the module files found through the package's exports.
  const given = `${decodeText}
    import { readFileSync } from "node:fs";
    const bytes = (file) => readFileSync(new URL(import.meta.resolve(file)));
    const web = await import("agentwire/web");
    let early;
    try { new web.AgentStreamDecoder(); early = "no error"; } catch (e) { early = e.code; }
    await web.init(bytes("agentwire/agentwire_bg.wasm"));
    const api = await import("agentwire/agent-api/web");
    await api.init(new Response(bytes("agentwire/agent-api/agentwire_bg.wasm"), { headers: { "content-type": "application/wasm" } }));
    const x = await import("agentwire/agentx/web");
    await x.default(new WebAssembly.Module(bytes("agentwire/agentx/agentwire_bg.wasm")));
    console.log(JSON.stringify({ early, bytes: decodeText(web, "bytes"), response: decodeText(api, "response"), module: typeof new x.AgentxStreamDecoder().feed }));`;
  writeFileSync(join(app, "given.mjs"), given);
  assert.deepEqual(JSON.parse(sh("node", ["given.mjs"], app)), {
    early: "not-initialized",
    bytes: "bytes",
    response: "response",
    module: "function",
  });
  // The bundler/ targets as a bundler with WebAssembly ESM integration loads them: Node's own
  // implementation of that proposal (`--experimental-wasm-modules`) imports each module, whose
  // imports resolve to the glue beside it.
  const bundled = `${decodeText}
    const text = async (entry) => {
      const aw = await import(entry);
      await aw.init(); // resolves at once: the module is instantiated by the import
      return decodeText(aw, entry);
    };
    const x = await import("agentwire/agentx/bundler");
    console.log(JSON.stringify({
      full: await text("agentwire/bundler"),
      api: await text("agentwire/agent-api/bundler"),
      x: typeof new x.AgentxStreamDecoder().feed,
    }));`;
  writeFileSync(join(app, "bundled.mjs"), bundled);
  // (Node 20 needs the flag; a later Node with the integration unflagged may not know it.)
  const wasmModules = process.allowedNodeEnvironmentFlags.has("--experimental-wasm-modules") ? ["--experimental-wasm-modules"] : [];
  assert.deepEqual(JSON.parse(sh("node", [...wasmModules, "--no-warnings", "bundled.mjs"], app)), {
    full: "agentwire/bundler",
    api: "agentwire/agent-api/bundler",
    x: "function",
  });
});

test("a fresh TypeScript project type-checks every entry point through the package's exports", () => {
  const app = join(work, "ts-app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "ts-app", private: true, type: "module" }));
  npm(["install", tarball], app);
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const entries = Object.keys(pkg.exports).filter((k) => !/\.(wasm|json)$/.test(k)).map((k) => k.replace(/^\./, "agentwire"));
  assert.ok(entries.length >= 20, entries.join(" "));
  // Each entry point's declarations are found through `exports` (its `types` condition) and are
  // real types: a string is not a number (an `any` would make the expected error unused).
  const code = entries.map((e, i) => `
    import * as e${i} from "${e}";
    {
      const d = new e${i}.AgentStreamDecoder();
      const id: string = d.lastEventId;
      // @ts-expect-error a string is not a number
      const bad: number = d.lastEventId;
      void id; void bad;
      const init: () => Promise<void> = e${i}.init;
      void init;
    }`).join("\n") + "\nexport {};\n";
  writeFileSync(join(app, "app.ts"), code);
  for (const [module, resolution] of [["NodeNext", "NodeNext"], ["ES2022", "Bundler"]]) {
    const r = spawnSync(join(root, "node_modules/.bin/tsc"), ["--noEmit", "--strict", "--target", "ES2022", "--module", module,
      "--moduleResolution", resolution, "--lib", "ES2022,DOM,DOM.AsyncIterable,ESNext.Disposable", "app.ts"], { cwd: app, encoding: "utf8" });
    assert.equal(r.status, 0, `${resolution}: ${r.stdout}${r.stderr}`);
  }
});

/**
 * Serves the built app in `dir`, opens it in Chromium with the reference server's URL
 * (`?server=`), waits for its `#out` to leave "loading", and returns what it wrote there as JSON;
 * fails on page errors.
 */
async function openApp(dir) {
  const srv = await serveStatic(dir);
  const browser = await launch();
  try {
    const page = await newPage(browser);
    await page.goto(`http://127.0.0.1:${srv.address().port}/?server=${encodeURIComponent(server())}`);
    await page.waitForFunction(() => document.getElementById("out").textContent !== "loading", null, { timeout: 20000 });
    const result = await page.textContent("#out");
    assert.ok(result.startsWith("{"), result);
    assert.deepEqual(page.pageErrors, []);
    return JSON.parse(result);
  } finally {
    await browser.close();
    srv.close();
  }
}

function serveStatic(dir) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
  const srv = createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = existsSync(path) && !path.endsWith("/") ? path : join(dir, "index.html");
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => srv.listen(0, "127.0.0.1", () => resolve(srv)));
}

test("a fresh Vite 7 app bundles the package and streams from the reference server in Chromium", async () => {
  const app = newApp("vite-app", "vite@7.3.8");
  writeFileSync(join(app, "index.html"), `<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="/main.js"></script></body></html>`);
  writeFileSync(join(app, "main.js"), appScript(`
    import * as full from "agentwire";`, `
    const early = [];
    for (const use of [() => new full.AgentStreamDecoder(), () => full.StructuredMessage.fromJSON("{}")]) {
      try { use(); early.push("no error"); } catch (e) { early.push(e instanceof full.ProtocolError ? e.code : String(e)); }
    }
    await full.default();
    const { status, deltas } = await streamed(full, "from vite");
    // The smaller entry point, loaded on demand: its own module, the same API.
    const lite = await import("agentwire/agent-api");
    await lite.default();
    return { early, decoded: decodeText(full, "hi"), status, deltas, isError: new full.ProtocolError("a", "b") instanceof Error,
      liteDecoded: decodeText(lite, "lite"), liteLeftOut: leftOut(lite) };
  `));
  // Built without a warning: the smaller entry point's glue declares what its build left out
  // (scripts/declare-missing.mjs), so no import of the layer is reported as not exported.
  const built = spawnSync(join(app, "node_modules/.bin/vite"), ["build", "--logLevel", "warn"], { cwd: app, encoding: "utf8" });
  assert.equal(built.status, 0, built.stderr);
  assert.doesNotMatch(built.stdout + built.stderr, /not exported|warn/i);
  // Two modules bundled: the full one and, for the dynamic import, the Agent API's (smaller).
  const modules = readdirSync(join(app, "dist/assets")).filter((f) => f.endsWith(".wasm"))
    .map((f) => readFileSync(join(app, "dist/assets", f)).length).sort((a, b) => a - b);
  assert.equal(modules.length, 2, `wasm assets: ${modules}`);
  assert.ok(modules[0] < modules[1] * 0.6, `wasm assets: ${modules}`);
  const r = await openApp(join(app, "dist"));
  assert.deepEqual(r.early, ["not-initialized", "not-initialized"], "a clear error before init()");
  assert.equal(r.decoded, "hi");
  assert.equal(r.status, "completed");
  assert.match(r.deltas, /You asked: “from vite”/);
  assert.equal(r.isError, true);
  assert.equal(r.liteDecoded, "lite");
  assert.equal(r.liteLeftOut, "feature-not-built");
});

test("a fresh webpack 5 app bundles the bundler, browser and Node targets, and streams from the reference server in Chromium", async () => {
  const app = newApp("webpack-app", "webpack@5.113.0");
  // `agentwire/bundler` through webpack's WebAssembly ESM integration (`asyncWebAssembly`), the
  // Agent API's entry point in that form imported on demand, and `agentwire` (the browser target)
  // whose module URL (`new URL(…, import.meta.url)`) webpack emits as an asset.
  writeFileSync(join(app, "main.js"), appScript(`
    import * as full from "agentwire/bundler";`, `
    await full.init(); // resolves at once: the module is instantiated by the import
    const { status, deltas } = await streamed(full, "from webpack");
    const lite = await import("agentwire/agent-api/bundler");
    const web = await import("agentwire");
    await web.default();
    return { decoded: decodeText(full, "hi"), status, deltas, isError: new full.ProtocolError("a", "b") instanceof Error,
      liteDecoded: decodeText(lite, "lite"), liteLeftOut: leftOut(lite), webDecoded: decodeText(web, "web") };
  `));
  // A server bundle too (webpack's `node` target, as server-side rendering builds one): the Node
  // targets, whose glue reads web/'s module (scripts/build.sh), with that file as an asset.
  writeFileSync(join(app, "server.js"), `${decodeText}
    import * as full from "agentwire";
    import * as api from "agentwire/agent-api";
    await full.init();
    console.log(JSON.stringify([decodeText(full, "full"), decodeText(api, "api")]));
  `);
  writeFileSync(join(app, "build.mjs"), `
    import webpack from "webpack";
    const browser = {
      entry: "./main.js",
      output: { path: new URL("dist", import.meta.url).pathname },
      experiments: { asyncWebAssembly: true },
    };
    const server = {
      target: "node20",
      entry: "./server.js",
      output: { path: new URL("dist-server", import.meta.url).pathname, module: true, chunkFormat: "module" },
      experiments: { outputModule: true },
    };
    const config = process.argv[2] === "server" ? server : browser;
    webpack({ mode: "production", performance: { hints: false }, ...config }, (err, stats) => {
      if (err) throw err;
      const info = stats.toJson({ all: false, errors: true, warnings: true });
      console.log(JSON.stringify({ errors: info.errors.map((e) => e.message), warnings: info.warnings.map((e) => e.message) }));
    });
  `);
  // Built without an error or a warning (webpack rejects an import of a binding the glue does not
  // export, as an ES module package's strict rules say).
  assert.deepEqual(JSON.parse(sh("node", ["build.mjs"], app)), { errors: [], warnings: [] });
  assert.deepEqual(JSON.parse(sh("node", ["build.mjs", "server"], app)), { errors: [], warnings: [] });
  // The server bundle runs from elsewhere: it needs nothing of node_modules.
  const elsewhere = mkdtempSync(join(tmpdir(), "agentwire-server-bundle-"));
  try {
    for (const f of readdirSync(join(app, "dist-server"))) writeFileSync(join(elsewhere, f), readFileSync(join(app, "dist-server", f)));
    writeFileSync(join(elsewhere, "package.json"), JSON.stringify({ type: "module" }));
    const main = readdirSync(elsewhere).find((f) => /^main\.m?js$/.test(f));
    assert.deepEqual(JSON.parse(sh("node", [join(elsewhere, main)], elsewhere)), ["full", "api"]);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
  // Three modules: the bundler target's full one, the Agent API's (smaller), the browser target's.
  const modules = readdirSync(join(app, "dist")).filter((f) => f.endsWith(".wasm"))
    .map((f) => readFileSync(join(app, "dist", f)).length).sort((a, b) => a - b);
  assert.equal(modules.length, 3, `wasm assets: ${modules}`);
  assert.ok(modules[0] < modules[2] * 0.6 && modules[1] === modules[2], `wasm assets: ${modules}`);
  writeFileSync(join(app, "dist/index.html"), `<!doctype html><html><body><pre id="out">loading</pre><script src="main.js"></script></body></html>`);
  const r = await openApp(join(app, "dist"));
  assert.equal(r.decoded, "hi");
  assert.equal(r.status, "completed");
  assert.match(r.deltas, /You asked: “from webpack”/);
  assert.equal(r.isError, true);
  assert.equal(r.liteDecoded, "lite");
  assert.equal(r.liteLeftOut, "feature-not-built");
  assert.equal(r.webDecoded, "web");
});

test("a fresh esbuild app (esbuild-wasm) bundles the package, with the modules copied beside it, and streams in Chromium", async () => {
  // esbuild-wasm: esbuild compiled to WebAssembly (no native binary to download).
  const app = newApp("esbuild-app", "esbuild-wasm@0.28.2");
  // esbuild leaves `new URL("agentwire_bg.wasm", import.meta.url)` as it is: the module is copied
  // next to the bundle, where `init()` finds it; the Agent API's, loaded on demand, gets another
  // name and is given to its `init(url)`.
  writeFileSync(join(app, "main.js"), appScript(`
    import * as full from "agentwire";`, `
    await full.default();
    const { status, deltas } = await streamed(full, "from esbuild");
    const lite = await import("agentwire/agent-api");
    await lite.default(new URL("agent-api.wasm", import.meta.url));
    return { decoded: decodeText(full, "hi"), status, deltas, isError: new full.ProtocolError("a", "b") instanceof Error,
      liteDecoded: decodeText(lite, "lite"), liteLeftOut: leftOut(lite) };
  `));
  writeFileSync(join(app, "build.mjs"), `
    import { build } from "esbuild-wasm";
    import { copyFileSync } from "node:fs";
    import { createRequire } from "node:module";
    const r = await build({ entryPoints: ["main.js"], bundle: true, splitting: true, format: "esm", platform: "browser",
      minify: true, outdir: "dist", logLevel: "silent" });
    const resolve = createRequire(import.meta.url).resolve;
    copyFileSync(resolve("agentwire/agentwire_bg.wasm"), "dist/agentwire_bg.wasm");
    copyFileSync(resolve("agentwire/agent-api/agentwire_bg.wasm"), "dist/agent-api.wasm");
    console.log(JSON.stringify({ errors: r.errors.map((e) => e.text), warnings: r.warnings.map((e) => e.text) }));
  `);
  assert.deepEqual(JSON.parse(sh("node", ["build.mjs"], app)), { errors: [], warnings: [] });
  writeFileSync(join(app, "dist/index.html"), `<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="main.js"></script></body></html>`);
  const r = await openApp(join(app, "dist"));
  assert.deepEqual(r, {
    decoded: "hi", status: "completed", deltas: r.deltas, isError: true, liteDecoded: "lite", liteLeftOut: "feature-not-built",
  });
  assert.match(r.deltas, /You asked: “from esbuild”/);
});
