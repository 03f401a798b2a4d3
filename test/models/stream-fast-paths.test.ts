/**
 * The decoders check their most frequent chunks by hand instead of through zod. A hand check may
 * only ever be stricter than the schema it stands in for: whatever it lets through, zod accepts.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { isBlockDelta, schemas } from "../../src/models/anthropic-stream.js";
import { chunkSchema, isToolArgsChunk } from "../../src/models/openai-chunk.js";

// Values that sit on the edges of the rules: wrong types, negative and fractional indexes, nulls.
const edge = fc.oneof(
  fc.constantFrom(null, undefined, 0, -1, 1.5, 2 ** 60, "", "x", true, [], {}),
  fc.integer({ min: -3, max: 1000 }),
  fc.string(),
);
// Mostly well-formed, so the fast path is taken often; sometimes absent or an edge value.
const maybe = <T>(a: fc.Arbitrary<T>) =>
  fc.option(fc.oneof({ arbitrary: a, weight: 6 }, { arbitrary: edge, weight: 1 }), { nil: undefined, freq: 6 });
const rare = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.oneof(a, edge), weight: 1 });

const toolCall = fc.record(
  {
    index: maybe(fc.nat(5)),
    id: maybe(fc.string()),
    type: maybe(fc.constant("function")),
    function: maybe(fc.record({ name: maybe(fc.string()), arguments: maybe(fc.string()) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);
const openAIChunk = fc.record(
  {
    choices: maybe(
      fc.array(
        fc.record(
          {
            index: maybe(fc.nat(2)),
            finish_reason: rare(fc.constantFrom("stop", "tool_calls")),
            delta: maybe(
              fc.record(
                { tool_calls: maybe(fc.array(fc.oneof(toolCall, edge))), content: maybe(fc.string()) },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
        { minLength: 1, maxLength: 1 },
      ),
    ),
    usage: rare(fc.constant({ prompt_tokens: 1 })),
  },
  { requiredKeys: [] },
);
const anthropicDelta = fc.record(
  {
    type: fc.constant("content_block_delta"),
    index: maybe(fc.nat(5)),
    delta: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom("text_delta", "input_json_delta", "thinking_delta", "signature_delta")),
          text: maybe(fc.string()),
          partial_json: maybe(fc.string()),
          thinking: maybe(fc.string()),
          signature: maybe(fc.string()),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

describe("hand-checked fast paths never accept what the schema rejects", () => {
  test("OpenAI tool-call chunks", () => {
    let fast = 0;
    fc.assert(
      fc.property(openAIChunk, (json) => {
        const plain = JSON.parse(JSON.stringify(json)) as unknown; // as it arrives: no undefined
        if (!isToolArgsChunk(plain)) return;
        fast++;
        expect(chunkSchema.safeParse(plain).success).toBe(true);
      }),
      { numRuns: 6000 },
    );
    expect(fast).toBeGreaterThan(10);
  });

  test("Anthropic content_block_delta events", () => {
    let fast = 0;
    fc.assert(
      fc.property(anthropicDelta, (json) => {
        const plain = JSON.parse(JSON.stringify(json)) as unknown;
        if (!isBlockDelta(plain)) return;
        fast++;
        expect(schemas.content_block_delta.safeParse(plain).success).toBe(true);
      }),
      { numRuns: 6000 },
    );
    expect(fast).toBeGreaterThan(10);
  });

  test("the usual chunks take the fast path", () => {
    const call = { index: 0, id: "call_a", type: "function", function: { name: "a", arguments: '{"x":' } };
    expect(
      isToolArgsChunk({ id: "c", choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] }),
    ).toBe(true);
    expect(isToolArgsChunk({ choices: [{ delta: { tool_calls: [{ index: -1 }] } }] })).toBe(false);
    expect(
      isBlockDelta({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "1," } }),
    ).toBe(true);
    expect(isBlockDelta({ index: 1, delta: { type: "text_delta", text: 5 } })).toBe(false);
  });
});
