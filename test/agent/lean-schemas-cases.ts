/**
 * The agreement checks of agent/shared/lean-schemas.ts against the zod they are built with, run once per
 * zod (lean-schemas.test.ts: zod 3.25, lean-schemas.zod4.test.ts: zod 4): recordOf(value) must
 * accept and refuse what z.record(z.string(), value) does, give the same output and put issues at
 * the same paths with the same messages; sizedString what z.minLength and z.maxLength do.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type * as Zod from "zod/v4/mini";
import { recordOf, sizedString } from "../../src/agent/shared/lean-schemas.js";

class Thing {
  a = 1;
}

/** Values no JSON text gives, and JSON objects with keys that need care. */
export const OBJECTS: [string, unknown][] = [
  ["a Date", new Date(0)],
  ["a Map", new Map([["a", 1]])],
  ["a class instance", new Thing()],
  ["an array", [1, 2]],
  ["null", null],
  ["a string", "x"],
  ["an object without a prototype", Object.assign(Object.create(null), { a: 1 })],
  ["an own __proto__ key", JSON.parse('{"__proto__": {"x": 1}, "a": 2}')],
  ["a nested bad value", { a: 1, b: { c: "no" } }],
];

/**
 * Registers the checks.
 * @param z - The zod mini the package's schemas are built with in this test file.
 * @param objects - The inputs beyond any JSON value to check.
 */
export function leanSchemaCases(z: typeof Zod, objects: [string, unknown][]): void {
  const same = (value: Zod.ZodMiniType, input: unknown) => {
    const ours = recordOf(value).safeParse(input);
    const zods = z.record(z.string(), value).safeParse(input);
    expect(ours.success, JSON.stringify(input) ?? String(input)).toBe(zods.success);
    if (ours.success && zods.success) expect(ours.data).toEqual(zods.data);
    if (!ours.success && !zods.success)
      expect(ours.error.issues.map((i) => [i.path, i.message])).toEqual(
        zods.error.issues.map((i) => [i.path, i.message]),
      );
  };

  describe("recordOf", () => {
    test("agrees with z.record on any JSON value (property)", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (input) => {
          same(z.string(), input);
          same(z.union([z.number(), z.boolean()]), input);
        }),
      );
    });

    test.each(objects)("agrees with z.record on %s", (_, input) => {
      same(z.unknown(), input);
      same(z.number(), input);
      same(z.union([z.number(), recordOf(z.number())]), input);
    });

    test("a class instance, a Date and an array are refused, as by z.record", () => {
      for (const input of [new Thing(), new Date(0), [], "x", null])
        expect(recordOf(z.unknown()).safeParse(input).success).toBe(false);
    });
  });

  describe("sizedString", () => {
    const zods = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
    test("accepts and refuses what minLength and maxLength do, with the same messages (property)", () => {
      fc.assert(
        fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.anything()), fc.nat(6), fc.nat(6), (input, min, span) => {
          const ours = sizedString(min, min + span).safeParse(input);
          const theirs = zods(min, min + span).safeParse(input);
          expect(ours.success).toBe(theirs.success);
          // On a string, the same issues; on anything else the type issue (zod also counts a `length` it finds there).
          if (!ours.success && !theirs.success && typeof input === "string")
            expect(ours.error.issues.map((i) => i.message)).toEqual(theirs.error.issues.map((i) => i.message));
          if (!ours.success && !theirs.success)
            expect(ours.error.issues[0]?.message).toBe(theirs.error.issues[0]?.message);
        }),
      );
    });
  });
}
