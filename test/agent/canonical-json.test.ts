// canonicalJson: one text per value (keys sorted), the same text as the plain map/join form it replaced.
import fc from "fast-check";
import { expect, test } from "vitest";
import { canonicalJson } from "../../src/agent/canonical-json.js";

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
