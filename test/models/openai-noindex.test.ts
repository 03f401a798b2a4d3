import { expect, test } from "vitest";
import { OpenAIStreamDecoder } from "../../src/models/openai-stream.js";
import type { ModelStreamEvent } from "../../src/agent/model.js";

// Servers that send each complete call in its own chunk without `index` (Ollama before it
// added the field, some llama.cpp/LM Studio builds): the second call is merged into the first.
test("OpenAI decoder: two complete calls in separate chunks without index stay two calls", () => {
  const d = new OpenAIStreamDecoder();
  const out: ModelStreamEvent[] = [];
  d.start(out);
  const chunk = (o: unknown) => ({ data: JSON.stringify(o), event: undefined, id: undefined }) as never;
  d.push(
    chunk({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ id: "call_a", type: "function", function: { name: "read", arguments: '{"p":"a"}' } }],
          },
        },
      ],
    }),
    out,
  );
  d.push(
    chunk({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ id: "call_b", type: "function", function: { name: "write", arguments: '{"p":"b"}' } }],
          },
        },
      ],
    }),
    out,
  );
  d.push(chunk({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }), out);
  const starts = out.filter((e) => e.type === "contentBlockStart");
  const inputs = out
    .filter((e) => e.type === "contentBlockDelta")
    .map((e) => (e as { delta: { input?: string } }).delta.input);
  console.log(JSON.stringify(starts), inputs);
  expect(starts).toHaveLength(2);
});
