/** A delegate's approval through the AG-UI adapter: paused, answered, resumed exactly once — warm and cold. */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../src/index.js";
import { bankAgent, newBank, type Bank } from "../fixtures/bank.js";
import { agentAsTool } from "../../src/multiagent/delegate.js";
import { runAgui } from "../../src/agui/core/run.js";
import { collect, input, interruptsOf, snap, stateOf, user } from "./helpers.js";

/** A lead that delegates to a clerk: the shared bank's payee-only transfer, gated in the clerk. */
function team(bank: Bank) {
  const clerk = bankAgent(bank, {
    name: "clerk",
    model: new ScriptedModel({
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "clerk done" } : { toolCalls: [{ name: "transfer", input: { to: "zoe" } }] },
    }),
    payeeOnly: true,
    result: ({ to }) => `paid ${to}`,
    gate: { remember: false },
  });
  return new Agent({
    name: "lead",
    model: new ScriptedModel({
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "all done" } : { toolCalls: [{ name: "clerk", input: { task: "pay zoe" } }] },
    }),
    tools: [agentAsTool(clerk, { name: "clerk", description: "Pays people." })],
  });
}

const subagentEvents = (events: BaseEvent[]) =>
  events
    .filter((e) => e.type.startsWith("SUBAGENT_"))
    .map(
      ({ timestamp: _t, parentMessageId: _p, ...rest }: Record<string, unknown>) =>
        rest as { type: string; outcome?: unknown },
    );

const parentCall = (events: BaseEvent[]) =>
  (events.find((e) => e.type === EventType.TOOL_CALL_START) as unknown as { toolCallId: string }).toolCallId;

describe("a delegate's approval over AG-UI", () => {
  it("names the parent's tool call, and resumes the delegate exactly once on a warm agent", async () => {
    const bank = newBank();
    const paid = bank.sent;
    const lead = team(bank);
    const first = await collect(runAgui({ agent: lead, input: input({ messages: [user("pay zoe")] }) }));
    const interrupt = interruptsOf(first)[0]!;
    expect(interrupt.toolCallId).toBe(parentCall(first));
    expect(paid).toEqual([]);
    // The front end sees which agent is working: the delegate starts, and is suspended on its question.
    expect(subagentEvents(first)).toEqual([
      {
        type: "SUBAGENT_STARTED",
        subagentRunId: parentCall(first),
        name: "clerk",
        parentToolCallId: parentCall(first),
      },
      {
        type: "SUBAGENT_FINISHED",
        subagentRunId: parentCall(first),
        outcome: { type: "suspended", interruptIds: [interrupt.id] },
      },
    ]);
    const second = await collect(
      runAgui({
        agent: lead,
        input: input({
          messages: snap(first),
          state: stateOf(first),
          resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
        }),
      }),
    );
    expect(paid).toEqual(["zoe"]);
    expect((second.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
    expect(subagentEvents(second).map((e) => [e.type, e.outcome])).toEqual([
      ["SUBAGENT_STARTED", undefined],
      ["SUBAGENT_FINISHED", { type: "success" }],
    ]);
  });

  it("resumes on a cold agent (edge, reload) from the state snapshot alone, exactly once", async () => {
    const bank = newBank();
    const paid = bank.sent;
    const first = await collect(runAgui({ agent: team(bank), input: input({ messages: [user("pay zoe")] }) }));
    const state = stateOf(first);
    expect(Object.keys((state.kaboo_session as { delegates?: object }).delegates ?? {})).toEqual(["clerk"]);
    const resume = [
      { interruptId: interruptsOf(first)[0]!.id, status: "resolved" as const, payload: { approved: true } },
    ];
    const ledger = new MemoryExecutionLedger(); // the thread store's, at the edge
    await collect(runAgui({ agent: team(bank), ledger, input: input({ messages: snap(first), state, resume }) }));
    expect(paid).toEqual(["zoe"]);
    await collect(runAgui({ agent: team(bank), ledger, input: input({ messages: snap(first), state, resume }) }));
    expect(paid).toEqual(["zoe"]);
  });
});

describe("a failing delegate over AG-UI", () => {
  it("is reported as SUBAGENT_ERROR with the reason, and the run goes on", async () => {
    const broken = new Agent({
      name: "broken",
      model: new ScriptedModel({ script: [{ error: new Error("model down") }] }),
    });
    const lead = new Agent({
      name: "lead",
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length ? { text: "could not" } : { toolCalls: [{ name: "helper", input: { task: "x" } }] },
      }),
      tools: [agentAsTool(broken, { name: "helper", description: "Helps." })],
    });
    const events = await collect(runAgui({ agent: lead, input: input({ messages: [user("go")] }) }));
    const error = events.find((e) => e.type === EventType.SUBAGENT_ERROR) as unknown as {
      message: string;
      subagentRunId: string;
    };
    expect(error.subagentRunId).toBe(parentCall(events));
    expect(error.message).toMatch(/model down/);
    expect((events.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
  });
});
