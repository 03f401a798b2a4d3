// At the edge, with the real trace SDK: createAguiHandler runs a fresh agent per request, the request's
// traceparent (accepted in `prepare`) is the parent of the run's spans, and the resume, a later request in
// another trace, links its call to the span that asked, through the sealed session the client sent back.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../src/agui/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, MemoryExecutionLedger, ScriptedModel, tool } from "../../src/index.js";
import { MemoryThreadStore } from "../../src/stores/memory.js";
import { acceptTraceparent } from "../../src/otel/index.js";
import { pause, resumeBody, send } from "../agui/edge/fixtures.js";
import { tracing } from "./trace-fixtures.js";

const ASKING = "0af7651916cd43dd8448eb211c80319c";
const ANSWERING = "4bf92f3577b34da6a3ce929d0e0e4736";
const header = (traceId: string) => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });

function handler(t: ReturnType<typeof tracing>, store?: MemoryThreadStore) {
  const sent: unknown[] = [];
  const transfer = tool({
    name: "transfer",
    description: "Sends money.",
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    callback: (input) => (sent.push(input), "sent"),
  });
  const ledger = new MemoryExecutionLedger();
  const handle = createAguiHandler({
    agent: (_threadId, { secret }) =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          script: ({ lastToolResults }) =>
            lastToolResults.length
              ? { text: "done" }
              : { toolCalls: [{ name: "transfer", input: { to: "ann", amount: 5 }, id: "c1" }] },
        }),
        tools: [transfer],
        hooks: [t.hook, new InterruptHook(["transfer"], { ...(secret ? { secret } : {}) })],
      }),
    trust: { secret: "otel-edge-secret", principal: () => "bob" },
    stores: store ? { thread: store } : { ledger },
    prepare: (state, request) => void acceptTraceparent(state, request.headers.get("traceparent")),
  });
  return { handle, sent };
}

describe("TracingHook behind createAguiHandler", () => {
  for (const [kind, store] of [
    ["stateless (sealed session)", undefined],
    ["with a thread store", new MemoryThreadStore()],
  ] as const)
    test(`${kind}: each request's run is a child of its traceparent, and the resume links to the asking span`, async () => {
      const t = tracing();
      const { handle, sent } = handler(t, store);
      const { turn } = await pause(handle, "th", "pay ann 5", header(ASKING));
      const asked = t.one("execute_tool transfer");
      expect(asked.spanContext().traceId).toBe(ASKING);
      expect(t.one("invoke_agent bank").parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
      expect(asked.attributes["kaboo.approval.decision"]).toBe("asked");

      const done = await send(handle, resumeBody("th", turn, { approved: true }), header(ANSWERING));
      expect(done.error).toBeUndefined();
      expect(sent).toEqual([{ to: "ann", amount: 5 }]);
      const ran = t.spans().filter((s) => s.name === "execute_tool transfer")[1];
      expect(ran?.spanContext().traceId).toBe(ANSWERING);
      expect(ran?.attributes).toMatchObject({
        "kaboo.approval.decision": "approved",
        "kaboo.approval.principal": "bob",
        "kaboo.ledger.answer": "ran",
      });
      expect(ran?.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
        [ASKING, asked.spanContext().spanId],
      ]);
      const resumed = t.spans().filter((s) => s.name === "invoke_agent bank")[1];
      expect(resumed?.attributes).toMatchObject({ "gen_ai.conversation.id": "th", "kaboo.run.resuming": true });
    });
});
