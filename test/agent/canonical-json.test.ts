// canonicalJson: one text per value (keys sorted), the same text as the plain map/join form it replaced.
import fc from "fast-check";
import { expect, test } from "vitest";
import { canonicalJson } from "../../src/agent/shared/canonical-json.js";

function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

test("writes the same text as the reference form for any JSON value, keys of any text included", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      expect(canonicalJson(value)).toBe(reference(value));
    }),
    { numRuns: 500 },
  );
  const odd = { 'a"b': 1, "\\u2028": [undefined, () => 1], "": { z: 1, a: 2 }, "x.y:z-1": null, [Symbol("s")]: 1 };
  expect(canonicalJson(odd)).toBe(reference(odd));
  expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
});

test("writes strings, numbers and keys as JSON.stringify does, and sorts many keys as few", () => {
  const texts = ["", "plain", 'a"b', "back\\slash", "tab\tnew\nline", "\u0000\u001f\u007f", "\u2028\u2029", "é Ω 🚀"];
  const lone = ["\ud800", "x\udfffy", "\udc00\ud800"];
  for (const text of [...texts, ...lone]) expect(canonicalJson(text), JSON.stringify(text)).toBe(JSON.stringify(text));
  for (const n of [0, -0, 1, -1.5, 1e21, 5e-7, Number.MAX_VALUE, Number.MIN_VALUE, Number.NaN, Infinity, -Infinity])
    expect(canonicalJson(n), String(n)).toBe(JSON.stringify(n));
  expect(canonicalJson([true, false, null, undefined])).toBe("[true,false,null,null]");
  // Integer-like keys come first in property order; canonical order is by code unit, at any count of keys.
  const keys = ["10", "2", "b", "a", "", "Z", "é", "\ud83d\ude80", 'q"', "1", "aa", "a b"];
  for (let n = 1; n <= keys.length; n++) {
    const value = Object.fromEntries(keys.slice(0, n).map((k, i) => [k, i]));
    expect(canonicalJson(value), `${n} keys`).toBe(reference(value));
    expect(canonicalJson(Object.fromEntries(Object.entries(value).reverse()))).toBe(reference(value));
  }
});
