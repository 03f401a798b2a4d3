/**
 * cloneCall is structuredClone for what a tool call holds: the same copy for any JSON-like value
 * (shared references and cycles kept, an own "__proto__" key kept as a key), and structuredClone's own
 * copy (or its error) for values that are not plain data.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { cloneCall } from "../../src/agent/clone.js";

describe("cloneCall", () => {
  test("equals structuredClone for any JSON value, and shares nothing with the original (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const call = { type: "toolUse", toolUseId: "c1", name: "t", input: value };
        const copy = cloneCall(call);
        expect(copy).toStrictEqual(structuredClone(call));
        if (typeof value === "object" && value !== null) expect(copy.input).not.toBe(value);
      }),
    );
  });

  test("keeps shared references, cycles, undefined, -0 and an own __proto__ key", () => {
    const shared = { a: 1 };
    const input: Record<string, unknown> = { x: shared, y: shared, u: undefined, z: -0 };
    input.self = input;
    const copy = cloneCall(input);
    expect(copy.x).toBe(copy.y);
    expect(copy.x).not.toBe(shared);
    expect(copy.self).toBe(copy);
    expect("u" in copy).toBe(true);
    expect(Object.is(copy.z, -0)).toBe(true);
    const parsed = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const c = cloneCall(parsed);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(["__proto__"]);
    expect(c).toStrictEqual(structuredClone(parsed));
  });

  test("leaves what is not plain data to structuredClone", () => {
    const when = new Date(0);
    const sparse = [1, 2, 3];
    delete sparse[1];
    const value = { when, bytes: new Uint8Array([1, 2]), sparse };
    const copy = cloneCall(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(1 in copy.sparse).toBe(false);
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(() => cloneCall({ f: () => 1 })).toThrow(expect.objectContaining({ name: "DataCloneError" }));
  });
});
