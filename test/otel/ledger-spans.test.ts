// The ledger's answers and the paused session on the trace, with the real trace SDK: a replayed resume, a call
// whose outcome was lost, audit entry ids, and the host's own paused-session path on a cold agent.
import { describe, expect, test } from "vitest";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { TRACE_LINKS_KEY } from "../../src/otel/index.js";
import { restoreSessionState, SessionStateHook, sessionStateSnapshot } from "../../src/hooks/session-state-hook.js";
import { createSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import { calls, runs, thread, transferTool } from "./bank-thread.js";
import { tracing } from "./trace-fixtures.js";

describe("ledger answers and the paused session on execute_tool spans", () => {
  test("a replayed resume: the same answer on a second cold agent sharing the ledger replays the recorded result", async () => {
    const t = tracing();
    const ledger = new MemoryExecutionLedger();
    const th = thread(t, { ledger });
    await th.ask();
    // Two replicas restored from the same paused session, both answered: the call runs once.
    const second = thread(t, { ledger });
    await second.ask();
    await th.answer("bob", { approved: true });
    await second.answer("bob", { approved: true });
    expect(th.sent.length + second.sent.length).toBe(1);
    const answers = calls(t)
      .map((s) => s.attributes["kaboo.ledger.answer"])
      .filter((a) => a !== undefined);
    expect(answers).toEqual(["ran", "replayed"]);
  });

  test("with an audit log, each record's entry id is on the span and its events", async () => {
    const t = tracing();
    const th = thread(t, { audit: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const entries = await th.audit?.entries("th");
    expect(entries?.map((e) => e.kind)).toEqual(["request", "decision", "execution"]);
    expect(calls(t)[0]?.attributes["kaboo.approval.audit_seq"]).toBe(0);
    expect(calls(t)[1]?.attributes["kaboo.approval.audit_seq"]).toBe(1);
    expect(calls(t)[1]?.events.map((e) => e.attributes?.["kaboo.approval.audit_seq"])).toEqual([1, 2]);
  });

  test("through the host's paused session (the snapshot as JSON, restored on a cold agent): the resumed call links to the asking span", async () => {
    const t = tracing();
    const make = () =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          script: ({ lastToolResults }) =>
            lastToolResults.length
              ? { text: "ok" }
              : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
        }),
        tools: [transferTool().tool],
        hooks: [t.hook, new SessionStateHook(), new InterruptHook(["transfer"])],
      });
    const first: Record<string, unknown> = { threadId: "th" };
    createSessionExchange(first);
    const asker = make();
    const paused = await asker.invoke("pay eve", { invocationState: first });
    const snapshot = JSON.parse(JSON.stringify(sessionStateSnapshot(first)));
    expect(Object.keys(snapshot.interrupt_state.context)).toContain(TRACE_LINKS_KEY);
    const second: Record<string, unknown> = { threadId: "th" };
    createSessionExchange(second, { inbound: snapshot, resuming: true });
    const id = paused.interrupts[0]?.id as string;
    const cold = make();
    cold.messages = JSON.parse(JSON.stringify(asker.messages));
    restoreSessionState(cold, second);
    await cold.invoke([{ interruptResponse: { interruptId: id, response: { approved: true } } }], {
      invocationState: second,
    });
    const [asked, ran] = calls(t);
    expect(ran?.attributes["kaboo.ledger.answer"]).toBe("ran");
    expect(ran?.links.map((l) => l.context.spanId)).toEqual([asked?.spanContext().spanId]);
    expect(runs(t)[1]?.links).toHaveLength(1);
  });

  test("a call whose outcome was lost: the question is on its span (not an approval), then the person's answer and the run", async () => {
    const t = tracing();
    let now = 1_000;
    const ledger = new MemoryExecutionLedger({ now: () => now });
    const { tool: transfer, sent } = transferTool();
    const make = () =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          script: [{ toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "t1" }] }, { text: "done" }],
        }),
        tools: [transfer],
        ledger,
        hooks: [t.hook],
      });
    const { executionKey } = await import("../../src/index.js");
    await ledger.claim(await executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } }), { leaseMs: 10 });
    now += 11;
    const agent = make();
    const asked = await agent.invoke("pay", { invocationState: { threadId: "th" } });
    const question = asked.interrupts[0]?.id as string;
    expect(calls(t)[0]?.attributes).toMatchObject({
      "kaboo.tool.question": question,
      "kaboo.ledger.answer": "outcome_unknown",
    });
    expect(calls(t)[0]?.attributes["kaboo.approval.decision"]).toBeUndefined();
    await agent.invoke([{ interruptResponse: { interruptId: question, response: { action: "run_again" } } }], {
      invocationState: { threadId: "th" },
    });
    expect(sent).toEqual([{ to: "bob" }]);
    expect(calls(t)[1]?.attributes).toMatchObject({
      "kaboo.ledger.answer": "ran",
      "kaboo.ledger.person_answer": "run_again",
    });
    expect(calls(t)[1]?.links.map((l) => l.context.spanId)).toEqual([calls(t)[0]?.spanContext().spanId]);
  });
});
