/**
 * agent/shared/lean-schemas.ts with zod 3.25 (the repository's zod): recordOf and sizedString agree with
 * z.record and z.minLength/z.maxLength (see lean-schemas-cases.ts), and the package's JSON schema
 * built on recordOf agrees with z.record of it.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4/mini";
import { jsonValueSchema } from "../../src/agent/interrupts/interrupt.js";
import { looseObject, recordOf } from "../../src/agent/shared/lean-schemas.js";
import { leanSchemaCases, OBJECTS } from "./lean-schemas-cases.js";

leanSchemaCases(z, OBJECTS);

describe("recordOf with zod 3.25", () => {
  test("a record of JSON values agrees with z.record of them on any JSON value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const ours = recordOf(jsonValueSchema).safeParse(input);
        const theirs = z.record(z.string(), jsonValueSchema).safeParse(input);
        expect(ours.success).toBe(theirs.success);
        if (ours.success && theirs.success) {
          expect(ours.data).toEqual(theirs.data);
          expect(Object.getPrototypeOf(ours.data)).toBe(Object.prototype);
        }
      }),
    );
  });

  test("an own __proto__ key is dropped, never made the output's prototype", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const out = recordOf(jsonValueSchema).parse(input) as Record<string, unknown>;
    expect(out).toEqual({ a: 1 });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
    expect(recordOf(z.number()).safeParse(input).success).toBe(true);
  });

  test("a JSON object with a constructor key is a record, as in zod 4 (zod 3.25's record refused it)", () => {
    const input = JSON.parse('{"constructor": "x", "a": 1}');
    expect(recordOf(z.unknown()).parse(input)).toEqual({ constructor: "x", a: 1 });
    const issues = recordOf(z.number()).safeParse(input).error?.issues;
    expect(issues?.map((i) => i.path)).toEqual([["constructor"]]);
  });
});

describe("looseObject with zod 3.25", () => {
  test("an own __proto__ key is refused (zod 3.25 would make it the output's prototype); other keys pass", () => {
    const schema = looseObject({ scope: z.optional(z.literal(["once", "always"])) });
    const smuggled = JSON.parse('{"__proto__":{"scope":"forever"},"x":1}') as unknown;
    expect(z.looseObject({ scope: z.optional(z.literal(["once", "always"])) }).parse(smuggled).scope).toBe("forever");
    expect(schema.safeParse(smuggled).success).toBe(false);
    expect(schema.parse(JSON.parse('{"scope":"once","x":1}'))).toEqual({ scope: "once", x: 1 });
    // A primitive __proto__ value cannot set a prototype: zod drops it, and the object passes.
    expect(schema.safeParse(JSON.parse('{"__proto__":1,"scope":"once"}')).success).toBe(true);
    expect(z.discriminatedUnion("k", [looseObject({ k: z.literal("a") })]).safeParse({ k: "a" }).success).toBe(true);
  });
});
