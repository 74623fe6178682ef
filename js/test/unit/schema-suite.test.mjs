// The JSON Schema Test Suite's regular-expression tests through the package: in wasm, `pattern`
// and `patternProperties` are JavaScript's own RegExp (with the `u` flag), so these run here and
// in tests/wasm_tools.rs, and natively (with the regress crate) in tests/schema_suite.rs, which
// runs the whole suite. `scripts/setup.sh --suite` downloads it into target/json-schema-test-suite
// ($AGENTWIRE_SCHEMA_SUITE names another copy).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, root } from "../helpers.mjs";

const { ToolRegistry } = await agentwire();
const suite = process.env.AGENTWIRE_SCHEMA_SUITE ?? join(root, "target/json-schema-test-suite");

const FILES = ["pattern.json", "patternProperties.json", "optional/ecmascript-regex.json", "optional/non-bmp-regex.json"];

for (const draft of ["draft2020-12", "draft7"]) {
  test(`${draft}: the suite's pattern tests get the suite's verdicts`, () => {
    let run = 0;
    const failures = [];
    for (const file of FILES) {
      const cases = JSON.parse(readFileSync(join(suite, draft, file), "utf8"));
      for (const { description, schema, tests } of cases) {
        // Arguments are an object: the case's schema is the one member's. No case here has a
        // `$ref`, which would resolve differently one level down.
        assert.doesNotMatch(JSON.stringify(schema), /\$ref/);
        const registry = new ToolRegistry();
        const warnings = registry.register({ name: "t", description: "", parameters: { type: "object", properties: { v: schema } } });
        assert.deepEqual(warnings, [], `${file}: ${description}`);
        for (const t of tests) {
          run += 1;
          let valid = true;
          try {
            registry.validateArguments("t", { v: t.data });
          } catch (e) {
            assert.equal(e.code, "tool-validation");
            valid = false;
          }
          if (valid !== t.valid) failures.push(`${file}: ${description} / ${t.description}: expected valid = ${t.valid}`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(run >= 100, `only ${run} tests ran`);
  });
}
