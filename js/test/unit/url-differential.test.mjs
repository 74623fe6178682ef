// classifyUrl against the WHATWG URL parser the runtime carries (`new URL`): on random strings
// built from the characters scheme parsing turns on (letters, digits, `+-.:/`, spaces, tabs,
// newlines, C0 controls, non-ASCII; half of them starting like a scheme), the scheme classifyUrl reports must be the one `new URL`
// parses, and a string it calls relative must be one `new URL` cannot read without a base. A
// string `new URL` refuses for its host (`http://`) may still have a scheme for classifyUrl: that
// direction is not required.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";

const { classifyUrl } = await agentwire();

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const schemes = ["https", "HTTP", "javascript", "java\tscript", "jav\nascript", "data", "Data", "blob", "file", "x+y-z.1", "1x", "a", "é", "vb script"];

const pieces = [
  "\\\\", "a", "J", "z", "x", "0", "9", "+", "-", ".", ":", "/", "//", " ", "\t", "\n", "\r", "\u0000",
  "\u001f", "\u007f", "\u00a0", "é", "\u2028", "\ufeff", "javascript", "JavaScript", "data",
  "http", "https", "blob", "file", "java\tscript", "ht\ntp", "example.com", "?", "#", "%20", "@",
  "[", "\\", ",", ";", "image/png", "text/html",
];

test("classifyUrl's scheme is the one new URL parses, on 20,000 random strings", () => {
  const next = random(0x5eed);
  const failures = [];
  let parsed = 0;
  for (let i = 0; i < 20_000 && failures.length < 10; i++) {
    const n = 1 + Math.floor(next() * 8);
    const pick = (list) => list[Math.floor(next() * list.length)];
    // Half the strings start like a URL with a scheme (after junk scheme parsing may skip).
    let s = next() < 0.5 ? pick(["", " ", "\t", "\u0000", "\n ", "\u00a0"]) + pick(schemes) + pick([":", ":", ":", "", "\t:"]) : "";
    for (let j = 0; j < n; j++) s += pick(pieces);
    const ours = classifyUrl(s);
    let theirs = null;
    try {
      theirs = new URL(s).protocol.slice(0, -1);
    } catch {
      // no scheme, or a scheme whose URL does not parse
    }
    if (theirs !== null) parsed += 1;
    if (theirs !== null && ours.scheme !== theirs) {
      failures.push(`${JSON.stringify(s)}: classifyUrl ${JSON.stringify(ours.scheme)}, new URL ${JSON.stringify(theirs)}`);
    }
    if (ours.kind === "relative" && theirs !== null) {
      failures.push(`${JSON.stringify(s)}: relative for classifyUrl, scheme ${theirs} for new URL`);
    }
    const web = ours.kind === "https" || ours.kind === "http";
    if (!web && ours.safe !== ["blob", "data-image", "data-audio", "data-video"].includes(ours.kind)) {
      failures.push(`${JSON.stringify(s)}: ${ours.kind} with safe = ${ours.safe}`);
    }
    // A safe http(s) URL goes where it says whatever the page: resolved against a page of either
    // scheme, it is the same URL (`http:foo` on an http: page is the page's own path).
    if (web && ours.safe) {
      const at = (base) => {
        try {
          return new URL(s, base).href;
        } catch {
          return null;
        }
      };
      const [onHttp, onHttps] = [at("http://page.invalid/dir/"), at("https://page.invalid/dir/")];
      if (onHttp !== onHttps) failures.push(`${JSON.stringify(s)}: safe, but ${onHttp} on an http: page and ${onHttps} on an https: one`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(parsed >= 4_000, `only ${parsed} strings had a scheme for new URL`);
});
