// Launches Debian's Chromium with playwright-core (never a downloaded browser).
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";

export function chromiumPath() {
  return process.env.CHROMIUM ?? execFileSync("sh", ["-c", "command -v chromium"]).toString().trim();
}

/** `extraArgs`: more Chromium switches (the bench adds --js-flags=--expose-gc). */
export async function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

/** A page that fails the test on uncaught page errors. */
export async function newPage(browser) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  page.pageErrors = errors;
  return page;
}
