/**
 * Property: the handler's check of the usual run input (run-input.ts) accepts only what
 * `RunAgentInputSchema` accepts, and gives what it gives. Bodies are the usual shape, then changed:
 * a value of another type (null, a number, an array, an object), a key added (known to the schema
 * or not, `__proto__` too) or taken away, content parts instead of text, a tool call, a resume.
 */
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { plainRunInput } from "../../../src/agui/edge/request/run-input.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 3000;

const odd = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
  fc.constant([{ type: "text", text: "hi" }]),
  fc.boolean(),
);
const key = fc.oneof(
  fc.constantFrom(
    "threadId",
    "runId",
    "messages",
    "tools",
    "context",
    "state",
    "forwardedProps",
    "resume",
    "parentRunId",
    "protocolVersion",
    "id",
    "role",
    "content",
    "name",
    "toolCalls",
    "metadata",
    "encryptedValue",
    "description",
    "value",
    "parameters",
    "__proto__",
    "constructor",
  ),
  fc.string({ maxLength: 4 }),
);
/** Mostly the usual value, sometimes an odd one. */
const mostly = <T>(usual: fc.Arbitrary<T>) => fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: odd, weight: 1 });
const message = fc.record(
  {
    id: fc.string(),
    role: fc.oneof(
      { arbitrary: fc.constantFrom("user", "system", "developer", "assistant"), weight: 6 },
      { arbitrary: fc.constantFrom("tool", "activity", "other"), weight: 1 },
    ),
    content: mostly(fc.string()),
    name: mostly(fc.string()),
  },
  { requiredKeys: ["id", "role"] },
);
const tool = fc.record(
  { name: fc.string(), description: fc.string(), parameters: mostly(fc.constant({ type: "object" })) },
  { requiredKeys: ["name", "description"] },
);
const context = fc.record({ description: fc.string(), value: mostly(fc.string()) });
const body = fc.record(
  {
    threadId: mostly(fc.string()),
    runId: fc.string(),
    messages: mostly(fc.array(message, { maxLength: 4 })),
    tools: mostly(fc.array(tool, { maxLength: 2 })),
    context: mostly(fc.array(context, { maxLength: 2 })),
    state: mostly(fc.constant({ a: 1 })),
    forwardedProps: mostly(fc.constant({})),
    parentRunId: mostly(fc.string()),
  },
  { requiredKeys: ["runId"] },
);

/** A change at some depth: a key set to a value (or deleted), in the body, a message, a tool or a context. */
const change = fc.record({ where: fc.nat(8), key, value: odd, remove: fc.boolean() });

function apply(b: Record<string, unknown>, c: { where: number; key: string; value: unknown; remove: boolean }) {
  const parts = [
    b,
    ...["messages", "tools", "context"].flatMap((k) => (Array.isArray(b[k]) ? (b[k] as object[]) : [])),
  ];
  const target = parts[c.where % parts.length] as Record<string, unknown>;
  if (c.remove) delete target[c.key];
  else
    Object.defineProperty(target, c.key, {
      value: structuredClone(c.value),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return b;
}

describe("the usual run input, checked without the schema", () => {
  test("accepts only what RunAgentInputSchema accepts, and gives what it gives", () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        body,
        fc.oneof(
          { arbitrary: fc.constant([]), weight: 2 },
          { arbitrary: fc.array(change, { maxLength: 2 }), weight: 3 },
        ),
        (b, changes) => {
          // As the handler has it: parsed from JSON.
          const fresh = JSON.parse(JSON.stringify(b)) as Record<string, unknown>;
          const parsed: unknown = JSON.parse(JSON.stringify(changes.reduce(apply, fresh)) ?? "null");
          const plain = plainRunInput(parsed);
          if (plain === undefined) return;
          accepted++;
          const schema = RunAgentInputSchema.safeParse(parsed);
          expect(schema.success).toBe(true);
          expect(plain).toEqual(schema.data);
        },
      ),
      { numRuns: RUNS },
    );
    // The property says something only if the check accepts some bodies.
    expect(accepted).toBeGreaterThan(RUNS / 20);
  });

  test("the first turn of a chat, as a client sends it, is taken without the schema", () => {
    const first = {
      threadId: "t",
      runId: "r",
      messages: [{ id: "u1", role: "user", content: "hello" }],
      tools: [{ name: "transfer", description: "Send money.", parameters: { type: "object" } }],
      context: [{ description: "today", value: "Monday" }],
      state: {},
      forwardedProps: { kaboo_grants: [] },
    };
    expect(plainRunInput(first)).toEqual(RunAgentInputSchema.parse(first));
    expect(plainRunInput({ ...first, tools: undefined, context: undefined })).toEqual(
      RunAgentInputSchema.parse({ ...first, tools: undefined, context: undefined }),
    );
  });
});
