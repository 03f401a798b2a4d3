/**
 * recordOf under zod 4 (what a new install resolves): the package's schemas built with zod 4 agree
 * with zod 4's z.record(z.string(), value) on any JSON value and on the objects JSON cannot make.
 */
import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import * as z from "zod4/v4/mini";
import { recordOf, sizedString } from "../../src/agent/lean-schemas.js";

vi.mock("zod/v4/mini", async () => await import("zod4/v4/mini"));

const same = (value: z.ZodMiniType, input: unknown) => {
  const ours = recordOf(value as never).safeParse(input);
  const zods = z.record(z.string(), value).safeParse(input);
  expect(ours.success, JSON.stringify(input) ?? String(input)).toBe(zods.success);
  if (ours.success && zods.success) expect(ours.data).toEqual(zods.data);
  if (!ours.success && !zods.success)
    expect(ours.error.issues.map((i) => [i.path, i.message])).toEqual(
      zods.error.issues.map((i) => [i.path, i.message]),
    );
};

describe("recordOf with zod 4", () => {
  test("agrees with z.record on any JSON value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        same(z.string(), input);
        same(z.union([z.number(), z.boolean()]), input);
      }),
    );
  });

  test.each([
    ["a Date", new Date(0)],
    ["a Map", new Map([["a", 1]])],
    [
      "a class instance",
      new (class Thing {
        a = 1;
      })(),
    ],
    ["an array", [1, 2]],
    ["an object without a prototype", Object.assign(Object.create(null), { a: 1 })],
    ["an own __proto__ key", JSON.parse('{"__proto__": {"x": 1}, "a": 2}')],
    ["a constructor key", JSON.parse('{"constructor": "x", "a": 1}')],
    ["a nested bad value", { a: 1, b: { c: "no" } }],
  ])("agrees with z.record on %s", (_, input) => {
    same(z.unknown(), input);
    same(z.number(), input);
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
