/** The one depth walk, against a plain recursive reference, on random values. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { deepestPart, withinDepth } from "../../src/agent/shared/json-depth.js";
import { tooComplexJson } from "../../src/agui/edge/request/limits.js";

function depth(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depth));
}
function widest(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  const own = Array.isArray(v) ? 0 : Object.keys(v).length;
  return Math.max(own, ...(Array.isArray(v) ? v : Object.values(v)).map(widest));
}

describe("deepestPart / withinDepth", () => {
  test("property: withinDepth(v, n) is depth(v) <= n", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 8 }), (v, n) => {
        expect(withinDepth(v, n)).toBe(depth(v) <= n);
      }),
    );
  });

  test("property: deepestPart names the first value past its own bound", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 0, max: 6 })), { maxLength: 5 }),
        (parts) => {
          const expected = parts.findIndex(([v, n]) => depth(v) > n);
          expect(
            deepestPart(
              parts.map((p) => p[0]),
              parts.map((p) => p[1]),
            ),
          ).toBe(expected);
        },
      ),
    );
  });

  test("100,000 levels: no stack overflow; an own __proto__ key is walked like any key", () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(withinDepth(v, 64)).toBe(false);
    expect(withinDepth(JSON.parse('{"__proto__":{"a":{"b":1}}}'), 2)).toBe(false);
  });
});

describe("tooComplexJson scans the text as the parser would read it", () => {
  test("property: an object wider than the bound is found, and a narrower body passes", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 6 }), (v, keys) => {
        const text = JSON.stringify(v);
        const found = tooComplexJson(text, { maxValues: 1e9, maxObjectKeys: keys, maxDepth: 1e9 });
        expect(found !== undefined).toBe(widest(v) > keys);
      }),
    );
  });

  test("property: nesting past the bound is found", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 0, max: 6 }), (v, n) => {
        const found = tooComplexJson(JSON.stringify(v), { maxValues: 1e9, maxObjectKeys: 1e9, maxDepth: n });
        expect(found !== undefined).toBe(depth(v) > n);
      }),
    );
  });
});
