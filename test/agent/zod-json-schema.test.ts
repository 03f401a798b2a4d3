// The JSON Schema the model reads for zod schemas that cannot describe themselves (zod mini, zod 3.25's
// zod/v4): read from the definition, the same shapes zod's own toJSONSchema gives for a tool's input.
import { describe, expect, test } from "vitest";
import * as z3 from "zod/v4";
import * as zm3 from "zod/v4/mini";
import * as z4 from "zod4";
import * as zm4 from "zod4/mini";
import { zodJsonSchema } from "../../src/agent/tools/zod-json-schema.js";

/** Key order aside: JSON Schema objects are compared as sets of keywords. */
const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
        )
      : v;

describe.each([
  ["zod 4 mini", zm4],
  // The same API; typed as zod 4's so one test body serves both.
  ["zod 3.25 zod/v4/mini", zm3 as unknown as typeof zm4],
] as const)("%s", (_, z) => {
  test("strings, numbers and their constraints", () => {
    const s = z.object({
      city: z.string().check(z.minLength(2), z.maxLength(40)),
      email: z.email(),
      days: z.optional(z.int().check(z.minimum(1), z.maximum(14))),
      ratio: z.number().check(z.gt(0), z.lt(1)),
      code: z.string().check(z.regex(/^[A-Z]{3}$/)),
    });
    const json = zodJsonSchema(s) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(json.properties.city).toEqual({ type: "string", minLength: 2, maxLength: 40 });
    expect(json.properties.email).toMatchObject({ type: "string", format: "email" });
    expect(json.properties.days).toEqual({ type: "integer", minimum: 1, maximum: 14 });
    expect(zodJsonSchema(z.int())).toEqual({
      type: "integer",
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(json.properties.ratio).toEqual({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 });
    expect(json.properties.code).toEqual({ type: "string", pattern: "^[A-Z]{3}$" });
    expect(json.required).toEqual(["city", "email", "ratio", "code"]);
  });

  test("enums, literals, arrays, tuples, unions, records, nullable, defaults, strict objects", () => {
    const s = z.object({
      mode: z.enum(["fast", "slow"]),
      lit: z.literal("x"),
      tags: z.array(z.string()).check(z.minLength(1), z.maxLength(3)),
      pair: z.tuple([z.string(), z.number()]),
      either: z.union([z.string(), z.number()]),
      rec: z.record(z.string(), z.number()),
      maybe: z.nullable(z.string()),
      dflt: z._default(z.number(), 3),
      nested: z.strictObject({ a: z.boolean() }),
    });
    expect(sorted(zodJsonSchema(s))).toEqual(
      sorted({
        type: "object",
        properties: {
          mode: { type: "string", enum: ["fast", "slow"] },
          lit: { type: "string", const: "x" },
          tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
          pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false },
          either: { anyOf: [{ type: "string" }, { type: "number" }] },
          rec: { type: "object", additionalProperties: { type: "number" } },
          maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
          dflt: { type: "number", default: 3 },
          nested: {
            type: "object",
            properties: { a: { type: "boolean" } },
            required: ["a"],
            additionalProperties: false,
          },
        },
        required: ["mode", "lit", "tags", "pair", "either", "rec", "maybe", "nested"],
      }),
    );
  });

  test("what JSON Schema cannot say reads as anything; recursion stops; a __proto__ key stays a key", () => {
    type Node = { name: string; children: Node[] };
    const node: zm4.ZodMiniType<Node> = z.object({ name: z.string(), children: z.array(z.lazy(() => node)) }) as never;
    const s = z.object({
      when: z.date(),
      tree: node,
      piped: z.pipe(
        z.string(),
        z.transform((v: string) => v.length),
      ),
    });
    const json = zodJsonSchema(s) as { properties: Record<string, Record<string, unknown>> };
    expect(json.properties.when).toEqual({});
    expect(json.properties.piped).toEqual({ type: "string" });
    expect(json.properties.tree).toMatchObject({
      type: "object",
      properties: { children: { type: "array", items: {} } },
    });
    const proto = zodJsonSchema(z.object({ ["__proto__"]: z.string() })) as { properties: object };
    expect(Object.getPrototypeOf(proto.properties)).toBe(Object.prototype);
    expect(Object.keys(proto.properties)).toEqual(["__proto__"]);
  });
});

test("descriptions and titles reach the model (zod 4 mini's describe/meta, zod 3.25's describe)", () => {
  const m4 = zm4.object({
    city: zm4.string().check(zm4.describe("City name")),
    n: zm4.number().check(zm4.meta({ title: "N" })),
  });
  expect(zodJsonSchema(m4)).toMatchObject({ properties: { city: { description: "City name" }, n: { title: "N" } } });
  const c3 = z3.object({ city: z3.string().describe("City name").optional() });
  expect(zodJsonSchema(c3)).toEqual({
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
  });
});

test("agrees with zod's own toJSONSchema on a tool's usual input (zod 4 classic)", () => {
  const s = z4.object({
    city: z4.string().min(2).describe("City name"),
    days: z4.number().int().min(1).optional(),
    mode: z4.enum(["a", "b"]),
    tags: z4.array(z4.string()),
    nested: z4.object({ ok: z4.boolean() }),
  });
  const theirs = z4.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
  delete theirs.$schema;
  expect(sorted(zodJsonSchema(s))).toEqual(sorted(theirs));
});
