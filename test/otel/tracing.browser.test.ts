// TracingHook in real Chromium with the real trace SDK: a gated call asked in one run and approved in a resume
// on a fresh agent (the paused state through JSON), the call's spans, the approval and the link across the pause.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, InterruptState, ScriptedModel, tool } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { tracing } from "./trace-fixtures.js";

describe("TracingHook in the page", () => {
  test("asked, approved on a fresh agent, ran once, linked; the principal as its SHA-256", async () => {
    const t = tracing({ principals: "sha256" });
    const sent: unknown[] = [];
    const transfer = tool({
      name: "transfer",
      description: "Sends money.",
      inputSchema: z.object({ to: z.string() }),
      callback: (input) => (sent.push(input), "sent"),
    });
    const make = () =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          modelId: "m",
          script: ({ lastToolResults }) =>
            lastToolResults.length
              ? { text: "ok" }
              : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
        }),
        tools: [transfer],
        hooks: [t.hook, new InterruptHook(["transfer"])],
      });
    const first = make();
    const paused = await first.invoke("pay eve", { invocationState: { threadId: "th" } });
    const saved = JSON.parse(JSON.stringify({ messages: first.messages, state: first.interruptState.toJSON() }));
    const second = make();
    second.messages = saved.messages;
    second.interruptState = InterruptState.fromJSON(saved.state);
    const id = paused.interrupts[0]?.id as string;
    await second.invoke([{ interruptResponse: { interruptId: id, response: { approved: true } } }], {
      invocationState: { threadId: "th", kabooPrincipal: "bob" },
    });
    expect(sent).toEqual([{ to: "eve" }]);
    const [asked, ran] = t.spans().filter((s) => s.name === "execute_tool transfer");
    expect(asked?.attributes["kaboo.approval.decision"]).toBe("asked");
    expect(ran?.attributes).toMatchObject({
      "kaboo.approval.decision": "approved",
      "kaboo.ledger.answer": "ran",
      "gen_ai.tool.call.id": "c1",
    });
    expect(ran?.attributes["kaboo.approval.principal"]).toMatch(/^[0-9a-f]{64}$/);
    expect(ran?.links.map((l) => l.context.spanId)).toEqual([asked?.spanContext().spanId]);
    expect(t.tree()).toContain("execute_tool transfer < invoke_agent bank");
  });
});
