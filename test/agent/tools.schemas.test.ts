// tool() with every schema library a user may bring, through Standard Schema: the JSON Schema the
// model reads, inferred callback types, and validation errors that read the same for all of them.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, test } from "vitest";
import { z as zodClassic3 } from "zod";
import * as z3 from "zod/v4";
import * as zm3 from "zod/v4/mini";
import * as z4 from "zod4";
import * as zm4 from "zod4/mini";
import {
  Agent,
  ScriptedModel,
  type StandardSchemaV1,
  type ToolResultBlock,
  ToolDefinitionError,
  tool,
} from "../../src/index.js";

const CITY = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "number" } },
  required: ["city"],
};

/** Each library's schema for `{ city: string; days?: number }`. */
const schemas: Record<string, StandardSchemaV1<unknown, { city: string; days?: number | undefined }>> = {
  "zod 3.25 zod/v4": z3.object({ city: z3.string(), days: z3.number().optional() }),
  "zod 3.25 zod/v4/mini": zm3.object({ city: zm3.string(), days: zm3.optional(zm3.number()) }),
  "zod 4 classic": z4.object({ city: z4.string(), days: z4.number().optional() }),
  "zod 4 mini": zm4.object({ city: zm4.string(), days: zm4.optional(zm4.number()) }),
  "valibot (toStandardJsonSchema)": toStandardJsonSchema(v.object({ city: v.string(), days: v.optional(v.number()) })),
  arktype: type({ city: "string", "days?": "number" }),
};

async function callWith(t: ReturnType<typeof tool>, input: unknown): Promise<ToolResultBlock> {
  const model = new ScriptedModel({ script: [{ toolCalls: [{ name: t.name, input, id: "c1" }] }, { text: "ok" }] });
  const agent = new Agent({ model, tools: [t] });
  await agent.invoke("go");
  const block = agent.messages.flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === "toolResult");
  if (!block) throw new Error("no tool result");
  return block;
}
const textOf = (r: ToolResultBlock) => r.content.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("");

describe.each(Object.entries(schemas))("tool() with %s", (_, schema) => {
  const seen: unknown[] = [];
  const weather = () =>
    tool({
      name: "weather",
      description: "Weather for a city.",
      inputSchema: schema,
      callback: (input) => {
        seen.push(input);
        return `sunny in ${input.city}`;
      },
    });

  test("the model gets the object's JSON Schema, without $schema", async () => {
    const t = weather();
    await new Agent({ model: new ScriptedModel({ script: [] }), tools: [t] }).prepareTools();
    const json = t.spec.inputSchema as Record<string, unknown>;
    expect(json).toMatchObject(CITY);
    expect(json.$schema).toBeUndefined();
  });

  test("valid input reaches the callback parsed", async () => {
    seen.length = 0;
    const result = await callWith(weather(), { city: "Oslo", days: 2 });
    expect(result.status).toBe("success");
    expect(textOf(result)).toBe("sunny in Oslo");
    expect(seen).toEqual([{ city: "Oslo", days: 2 }]);
  });

  test("invalid input: one readable line per problem, the callback never runs", async () => {
    seen.length = 0;
    const result = await callWith(weather(), { city: 5, days: "x" });
    expect(result.status).toBe("error");
    const lines = textOf(result).split("\n");
    expect(lines[0]).toBe('Invalid input for tool "weather":');
    expect(lines.slice(1).map((l) => l.slice(0, l.indexOf(":") + 1))).toEqual(["- city:", "- days:"]);
    expect(lines.slice(1).every((l) => l.length > "- city: ".length)).toBe(true);
    expect(seen).toEqual([]);
  });
});

describe("tool() schema sources", () => {
  test("types: input inferred from zod 4, valibot and arktype schemas", () => {
    tool({
      name: "a",
      description: "",
      inputSchema: z4.object({ a: z4.string() }),
      callback: (input) => expectTypeOf(input).toEqualTypeOf<{ a: string }>(),
    });
    tool({
      name: "b",
      description: "",
      inputSchema: v.object({ b: v.number() }),
      jsonSchema: { type: "object", properties: { b: { type: "number" } } },
      callback: (input) => expectTypeOf(input).toEqualTypeOf<{ b: number }>(),
    });
    tool({
      name: "c",
      description: "",
      inputSchema: type({ c: "boolean" }),
      callback: (input) => expectTypeOf(input).toEqualTypeOf<{ c: boolean }>(),
    });
    tool<{ d: string }>({
      name: "d",
      description: "",
      jsonSchema: { type: "object", properties: { d: { type: "string" } } },
      callback: (input) => expectTypeOf(input).toEqualTypeOf<{ d: string }>(),
    });
  });

  test("zod 3's classic API: the error says to import from zod/v4", () => {
    const make = () =>
      tool({
        name: "z3",
        description: "",
        inputSchema: zodClassic3.object({ a: zodClassic3.string() }),
        callback: () => "",
      });
    expect(make).toThrow(ToolDefinitionError);
    expect(make).toThrow(/zod 3's classic API[\s\S]*import \* as z from "zod\/v4"/);
  });

  test("a bare valibot schema has no JSON Schema of its own: the error says what to pass", () => {
    const make = () =>
      tool({ name: "v", description: "", inputSchema: v.object({ a: v.string() }), callback: () => "" });
    expect(make).toThrow(ToolDefinitionError);
    expect(make).toThrow(/jsonSchema/);
  });

  test("an explicit jsonSchema wins over the schema's own, and validation still uses the schema", async () => {
    const json = { type: "object", properties: { a: { type: "string", description: "given" } }, required: ["a"] };
    const t = tool({
      name: "v",
      description: "",
      inputSchema: v.object({ a: v.string() }),
      jsonSchema: json,
      callback: () => "ran",
    });
    expect(t.spec.inputSchema).toEqual(json);
    expect(textOf(await callWith(t, { a: 1 }))).toMatch(/^Invalid input for tool "v":\n- a: /);
    expect(textOf(await callWith(t, { a: "x" }))).toBe("ran");
  });

  test("plain JSON Schema: sent as given; only a JSON object is accepted", async () => {
    const json = { type: "object", properties: { q: { type: "string" } } };
    const t = tool({
      name: "plain",
      description: "",
      jsonSchema: json,
      callback: (input) => `got ${JSON.stringify(input)}`,
    });
    expect(t.spec.inputSchema).toEqual(json);
    expect(textOf(await callWith(t, { q: "x" }))).toBe('got {"q":"x"}');
    expect(textOf(await callWith(t, [1]))).toMatch(
      /^Invalid input for tool "plain":\n- The input must be a JSON object\.$/,
    );
    expect(() => tool({ name: "p", description: "", jsonSchema: { type: "string" }, callback: () => "" })).toThrow(
      ToolDefinitionError,
    );
  });

  test("no schema at all is a definition error", () => {
    expect(() => tool({ name: "n", description: "", callback: () => "" } as never)).toThrow(
      /inputSchema or a jsonSchema/,
    );
  });

  test("an async Standard Schema is awaited", async () => {
    const asyncSchema: StandardSchemaV1<unknown, { n: number }> = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: async (value) =>
          typeof (value as { n?: unknown }).n === "number"
            ? { value: value as { n: number } }
            : { issues: [{ message: "n must be a number", path: [{ key: "n" }] }] },
      },
    };
    const t = tool({
      name: "as",
      description: "",
      inputSchema: asyncSchema,
      jsonSchema: { type: "object" },
      callback: (i) => `n=${i.n}`,
    });
    expect(textOf(await callWith(t, { n: 3 }))).toBe("n=3");
    expect(textOf(await callWith(t, { n: "3" }))).toBe('Invalid input for tool "as":\n- n: n must be a number');
  });

  test("nested paths read as items[0].name", async () => {
    const t = tool({
      name: "nest",
      description: "",
      inputSchema: z4.object({ items: z4.array(z4.object({ name: z4.string() })) }),
      callback: () => "",
    });
    expect(textOf(await callWith(t, { items: [{ name: 1 }] }))).toMatch(/\n- items\[0\]\.name: /);
  });
});
