/**
 * 100,000 TOKEN events through EventPublisher.asCallbackHandler → StreamEvent → SSE bytes
 * (`data: <JSON>\n\n` through TextEncoder), against JSON.stringify + TextEncoder of equivalent
 * plain objects built in the same loop. The AG-UI mapping stage (StreamEvent → AG-UI event) is
 * not here yet: the adapter adds it.
 *
 * Run: npx vitest bench --run bench/event-publisher.bench.ts
 */
import { bench, describe } from "vitest";
import type { AgentStreamEvent } from "../src/agent/stream-events.js";
import { EventPublisher, type StreamEvent } from "../src/hooks/event-publisher.js";

const N = 100_000;
const encoder = new TextEncoder();
const words = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog. ", "Ünïcödé ✓ "];
const deltas: AgentStreamEvent[] = Array.from({ length: N }, (_, i) => ({
  type: "model",
  event: { type: "contentBlockDelta", index: 0, delta: { type: "text", text: words[i % words.length]! } },
}));

let bytes = 0;
const toSse = (event: unknown) => {
  bytes += encoder.encode(`data: ${JSON.stringify(event)}\n\n`).byteLength;
};

const publisher = new EventPublisher((e: StreamEvent) => toSse(e), "analyst", {
  streamGroup: "team.analyst",
  streamTitle: "Analysing",
});

describe("100,000 TOKEN events to SSE bytes", () => {
  bench("EventPublisher.asCallbackHandler → StreamEvent → JSON + TextEncoder", () => {
    bytes = 0;
    const handle = publisher.asCallbackHandler({ threadId: "thread-1", runId: "run-1" });
    for (let i = 0; i < N; i++) handle(deltas[i]!);
    if (bytes === 0) throw new Error("nothing encoded");
  });

  bench("baseline: equivalent plain objects → JSON + TextEncoder", () => {
    bytes = 0;
    for (let i = 0; i < N; i++) {
      const d = deltas[i] as { event: { delta: { text: string } } };
      toSse({
        type: "token",
        agentName: "analyst",
        timestamp: Date.now(),
        data: {
          text: d.event.delta.text,
          stream_group: "team.analyst",
          stream_title: "Analysing",
          agent_name: "analyst",
          thread_id: "thread-1",
          run_id: "run-1",
        },
      });
    }
    if (bytes === 0) throw new Error("nothing encoded");
  });
});
