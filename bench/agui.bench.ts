/**
 * 100,000 token events: runner stream event → AguiEventMapper → SSE bytes (encodeSseEvent), against
 * JSON.stringify + TextEncoder of equivalent plain AG-UI event objects built in the same loop.
 * A third case runs the same events through sseStream (async generator → ReadableStream → reader),
 * which is what the edge handler does per run.
 *
 * Run: npx vitest bench --run bench/agui.bench.ts
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { bench, describe } from "vitest";
import type { AgentStreamEvent } from "../src/agent/stream-events.js";
import { AguiEventMapper } from "../src/agui/events.js";
import { encodeSseEvent, sseStream } from "../src/agui/edge/request/sse.js";

const N = 100_000;
const encoder = new TextEncoder();
const words = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog. ", "Ünïcödé ✓ "];
const deltas: AgentStreamEvent[] = Array.from({ length: N }, (_, i) => ({
  type: "model",
  event: { type: "contentBlockDelta", index: 0, delta: { type: "text", text: words[i % words.length]! } },
}));
const opening: AgentStreamEvent[] = [
  { type: "model", event: { type: "messageStart", role: "assistant" } },
  { type: "model", event: { type: "contentBlockStart", index: 0, start: { type: "text" } } },
] as AgentStreamEvent[];
const MESSAGE_ID = "3f1c2b9e-6a51-4c43-9a43-3c1f0e0d2a77";

function mapperFor(): AguiEventMapper {
  const mapper = new AguiEventMapper(() => MESSAGE_ID);
  for (const e of opening) mapper.map(e);
  return mapper;
}

async function* mapped(): AsyncGenerator<BaseEvent> {
  const mapper = mapperFor();
  for (let i = 0; i < N; i++) yield* mapper.map(deltas[i]!);
  yield { type: EventType.RUN_FINISHED, timestamp: Date.now(), threadId: "t", runId: "r" } as BaseEvent;
}

describe("100,000 token events to SSE bytes", () => {
  bench("runner event → AguiEventMapper → encodeSseEvent", () => {
    let bytes = 0;
    const mapper = mapperFor();
    for (let i = 0; i < N; i++) for (const e of mapper.map(deltas[i]!)) bytes += encodeSseEvent(e).byteLength;
    if (bytes === 0) throw new Error("nothing encoded");
  });

  bench("baseline: plain AG-UI objects → JSON.stringify + TextEncoder", () => {
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const d = deltas[i] as { event: { delta: { text: string } } };
      const event = {
        type: "TEXT_MESSAGE_CONTENT",
        timestamp: Date.now(),
        messageId: MESSAGE_ID,
        delta: d.event.delta.text,
      };
      bytes += encoder.encode(`data: ${JSON.stringify(event)}\n\n`).byteLength;
    }
    if (bytes === 0) throw new Error("nothing encoded");
  });

  bench("the same through sseStream (async generator → ReadableStream → reader)", async () => {
    let bytes = 0;
    const reader = sseStream(mapped(), { heartbeatMs: 0 }).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
    if (bytes === 0) throw new Error("nothing encoded");
  });
});
