// The approval demo page in headless Chromium: an ACP run of the reference server's `approval`
// agent, with Approve / Reject / Cancel enabled from the run lifecycle's allowed moves.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./chromium.mjs";
import { server } from "../helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

const disabled = (page, id) => page.locator(`#${id}`).isDisabled();

async function open(pace) {
  const page = await newPage(browser);
  await page.goto(`${server()}/approval.html?pace=${pace}`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

async function buttons(page) {
  return {
    approve: !(await disabled(page, "approve")),
    reject: !(await disabled(page, "reject")),
    cancel: !(await disabled(page, "cancel")),
  };
}

test("approve: the buttons follow the lifecycle and the run completes with the approval", async () => {
  const page = await open(60);
  assert.deepEqual(await buttons(page), { approve: false, reject: false, cancel: false }, "idle: nothing to answer");
  assert.match(await page.textContent("#lifecycle"), /awaiting --> in_progress: client resume/);
  await page.click("#start");
  // While the plan streams, the run may be cancelled but there is nothing to approve yet.
  await page.waitForSelector("#state[data-state=in-progress]");
  await page.waitForSelector("#transcript .text span");
  assert.deepEqual(await buttons(page), { approve: false, reject: false, cancel: true }, "in-progress");
  await page.waitForSelector("#state[data-state=awaiting]", { timeout: 20000 });
  assert.deepEqual(await buttons(page), { approve: true, reject: true, cancel: true }, "awaiting");
  assert.equal(await page.textContent("#question"), "Approve the deployment? (yes/no)");
  const plan = await page.textContent("#transcript .text");
  assert.equal(plan, "I will deploy version 2.4.1 to production: 3 services, about 2 minutes of rolling restarts. ");

  await page.click("#approve");
  await page.waitForSelector("#result[data-status=completed]", { timeout: 20000 });
  assert.equal(await page.textContent("#result"), "Run completed");
  assert.equal(
    await page.textContent("#transcript .text"),
    plan + "Approved (“yes”): deploying version 2.4.1 now. Done.",
  );
  assert.deepEqual(await buttons(page), { approve: false, reject: false, cancel: false }, "completed");
  assert.equal(await page.isHidden("#question"), true);
  assert.deepEqual(await page.locator("#states li").evaluateAll((lis) => lis.map((li) => li.dataset.to)), [
    "created",
    "in-progress",
    "awaiting",
    "in-progress",
    "completed",
  ]);
  assert.equal(await page.locator("#errors .error").count(), 0);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("reject: the agent does nothing and the run completes", async () => {
  const page = await open(5);
  await page.click("#start");
  await page.waitForSelector("#state[data-state=awaiting]", { timeout: 20000 });
  await page.click("#reject");
  await page.waitForSelector("#result[data-status=completed]", { timeout: 20000 });
  assert.match(await page.textContent("#transcript .text"), /Rejected \(“no”\): nothing was deployed\.$/);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("cancel while awaiting ends the run cancelled", async () => {
  const page = await open(5);
  await page.click("#start");
  await page.waitForSelector("#state[data-state=awaiting]", { timeout: 20000 });
  await page.click("#cancel");
  await page.waitForSelector("#result[data-status=cancelled]", { timeout: 20000 });
  assert.equal(await page.textContent("#result"), "Run cancelled");
  assert.equal(await page.getAttribute("#state", "data-state"), "cancelled");
  assert.deepEqual(await buttons(page), { approve: false, reject: false, cancel: false }, "cancelled");
  assert.deepEqual(await page.locator("#states li").evaluateAll((lis) => lis.map((li) => li.dataset.to)).then((s) => s.slice(-2)), [
    "cancelling",
    "cancelled",
  ]);
  assert.equal(await page.locator("#errors .error").count(), 0);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});

test("cancel while the plan streams ends the run cancelled with the partial plan kept", async () => {
  const page = await open(150);
  await page.click("#start");
  await page.waitForSelector("#transcript .text span");
  await page.click("#cancel");
  await page.waitForSelector("#result[data-status=cancelled]", { timeout: 20000 });
  const partial = await page.textContent("#transcript .text");
  assert.ok(partial.length > 0 && !partial.includes("restarts."), partial);
  assert.equal(await page.isHidden("#question"), true);
  assert.deepEqual(page.pageErrors, []);
  await page.close();
});
