// Over AG-UI: a call whose page died mid-call is asked about (reason outcome_unknown), never re-run
// silently; a batch that fails part way says in RUN_ERROR which calls ran.
import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { runAgui } from "../../src/agui/core/run.js";
import { BeforeToolCallEvent, MemoryExecutionLedger, ScriptedModel, type ExecutionLedger } from "../../src/index.js";
import { bankRunner } from "./fixtures.js";
import { bankAgent, newBank } from "../fixtures/bank.js";
import { collect, input, interruptsOf, snap, stateOf, user } from "./helpers.js";

describe("outcome unknown over AG-UI", () => {
  it("asks with reason outcome_unknown, the call's id, a message and the answers it reads; treat_as_done runs nothing", async () => {
    const bank = newBank();
    let now = 1_000;
    const memory = new MemoryExecutionLedger({ now: () => now });
    let pageDies = true;
    // The page dies after the tool ran and before its result was recorded.
    const ledger: ExecutionLedger = {
      claim: (k, o) => memory.claim(k, o),
      settle: async (k, t, r) => (pageDies ? undefined : memory.settle(k, t, r)),
      release: (k, t) => memory.release(k, t),
    };
    const first = await collect(
      runAgui({ agent: bankRunner(bank), ledger, input: input({ messages: [user("pay gina 4")] }) }),
    );
    const approve = [
      { interruptId: interruptsOf(first)[0]!.id, status: "resolved" as const, payload: { approved: true } },
    ];
    const resumed = input({ messages: snap(first), state: stateOf(first), resume: approve });
    await collect(runAgui({ agent: bankRunner(bank), ledger, input: resumed }));
    expect(bank.transfers).toHaveLength(1);
    pageDies = false;
    now += 16 * 60 * 1000;
    // The reloaded page sends the pause it last saved: the call's claim has no result.
    const asked = await collect(
      runAgui({ agent: bankRunner(bank), ledger, input: { ...resumed, runId: crypto.randomUUID() } }),
    );
    const [question] = interruptsOf(asked) as unknown as {
      id: string;
      reason: string;
      toolCallId: string;
      message: string;
      responseSchema: { properties: { action: { enum: string[] } } };
      metadata: { kaboo: { kind: string; tool: string } };
    }[];
    expect(question).toMatchObject({
      reason: "outcome_unknown",
      metadata: { kaboo: { kind: "outcome_unknown", tool: "transfer" } },
    });
    expect(question!.toolCallId).toBe(interruptsOf(first)[0]!.toolCallId);
    expect(question!.message).toMatch(/may have run/);
    expect(question!.responseSchema.properties.action.enum).toEqual(["run_again", "treat_as_done", "cancel"]);
    expect(bank.transfers).toHaveLength(1);
    const answered = await collect(
      runAgui({
        agent: bankRunner(bank),
        ledger,
        input: input({
          messages: snap(asked),
          state: stateOf(asked),
          resume: [...approve, { interruptId: question!.id, status: "resolved", payload: { action: "treat_as_done" } }],
        }),
      }),
    );
    expect(bank.transfers).toHaveLength(1);
    const result = answered.find((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as { content: string };
    expect(result.content).toMatch(/already ran/);
  });

  it("a batch that fails part way: the snapshots keep what ran, and RUN_ERROR TOOL_BATCH_FAILED names what ran and what did not", async () => {
    const bank = newBank();
    const sent = bank.sent;
    const script = [
      {
        toolCalls: [
          { name: "transfer", input: { to: "gus" }, id: "c1" },
          { name: "transfer", input: { to: "hal" }, id: "c2" },
        ],
      },
    ];
    const agent = bankAgent(bank, {
      model: new ScriptedModel({ script }),
      payeeOnly: true,
      toolExecutor: "sequential",
      gate: false,
    });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      if ((e.toolUse.input as { to?: string }).to === "hal") throw new Error("limit check down");
    });
    const events = await collect(runAgui({ agent, input: input({ messages: [user("pay both")] }) }));
    const error = events.at(-1) as unknown as { type: string; code: string; message: string };
    expect(error.type).toBe(EventType.RUN_ERROR);
    expect(error.code).toBe("TOOL_BATCH_FAILED");
    expect(error.message).toMatch(/Ran: transfer \(c1\)\. Did not run: transfer \(c2\)/);
    expect(sent).toEqual(["gus"]);
    // What finished reaches the front end before the error: the call that ran and its result.
    const messages = events.find((e) => e.type === EventType.MESSAGES_SNAPSHOT) as unknown as {
      messages: { role: string; toolCallId?: string; content?: string }[];
    };
    expect(messages.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([
      ["c1", "sent to gus"],
      ["c2", expect.stringMatching(/did not run/)],
    ]);
  });
});
