// The asking spans kept in a paused session come back from a client: only well-formed W3C trace contexts
// become links, at most 64, and a forged or broken value never fails the resume.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { TRACE_LINKS_KEY, spanContextFromTraceparent, traceparentOf } from "../../src/otel/index.js";
import { askingSpans } from "../../src/otel/trace-links.js";
import { tracing } from "./trace-fixtures.js";

const GOOD = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

function gatedAgent(hook: ReturnType<typeof tracing>["hook"]) {
  const sent: unknown[] = [];
  const transfer = tool({
    name: "transfer",
    description: "Sends money.",
    inputSchema: z.object({ to: z.string() }),
    callback: (input) => (sent.push(input), "sent"),
  });
  const agent = new Agent({
    name: "bank",
    model: new ScriptedModel({
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "ok" } : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
    }),
    tools: [transfer],
    hooks: [hook, new InterruptHook(["transfer"])],
  });
  return { agent, sent };
}

describe("trace links kept across a pause", () => {
  test("traceparent round trip: sampled and unsampled flags", () => {
    const sc = spanContextFromTraceparent(GOOD);
    expect(sc).toEqual({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    });
    expect(traceparentOf(sc as NonNullable<typeof sc>)).toBe(GOOD);
    expect(traceparentOf({ ...(sc as NonNullable<typeof sc>), traceFlags: 0 })).toMatch(/-00$/);
  });

  test("only well-formed values become links, each tied to the call its interrupt id names, at most 64", () => {
    const { agent } = gatedAgent(tracing().hook);
    const kept: Record<string, unknown> = {
      "hook:beforeToolCall:c1:kaboo_approval": GOOD,
      "hook:beforeToolCall:c2:kaboo_approval": "00-zz-not-hex-01",
      "hook:beforeToolCall:c3:kaboo_approval": 42,
      "hook:beforeToolCall:c4:kaboo_approval": { traceId: "x" },
      "not an interrupt id": GOOD,
    };
    for (let i = 0; i < 100; i++) kept[`tool:x${i}:q`] = GOOD;
    agent.interruptState.context[TRACE_LINKS_KEY] = kept as never;
    const links = askingSpans(agent);
    expect(links?.all.length).toBeLessThanOrEqual(64);
    expect(links?.byCall.get("c1")?.map((l) => l.context.spanId)).toEqual(["b7ad6b7169203331"]);
    for (const id of ["c2", "c3", "c4"]) expect(links?.byCall.has(id)).toBe(false);
    for (const bad of [null, "text", [GOOD], 7]) {
      agent.interruptState.context[TRACE_LINKS_KEY] = bad as never;
      expect(askingSpans(agent)).toBeUndefined();
    }
  });

  test("a resume whose kept links were forged still runs the approved call once, with no link", async () => {
    const t = tracing();
    const { agent, sent } = gatedAgent(t.hook);
    const paused = await agent.invoke("pay eve");
    agent.interruptState.context[TRACE_LINKS_KEY] = { [paused.interrupts[0]?.id as string]: "00-forged" };
    const r = await agent.invoke([
      { interruptResponse: { interruptId: paused.interrupts[0]?.id as string, response: { approved: true } } },
    ]);
    expect(r.stopReason).toBe("endTurn");
    expect(sent).toEqual([{ to: "eve" }]);
    const ran = t.spans().filter((s) => s.name === "execute_tool transfer")[1];
    expect(ran?.attributes["kaboo.approval.decision"]).toBe("approved");
    expect(ran?.links).toEqual([]);
  });
});
