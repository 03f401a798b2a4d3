// A call whose claim ran out without a result (the page died mid-call) is never repeated silently:
// the run asks, and runs it again, records it as done, or cancels, as the person answers.
import { describe, expect, test } from "vitest";
import {
  Agent,
  CallInProgressError,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  executionKey,
  type JsonValue,
} from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { InterruptState } from "../../src/agent/interrupts/interrupt.js";
import { auditKinds, expectAuditMatchesRuns } from "./audit-helpers.js";
import { expectConsistentTranscript } from "./helpers.js";
import { newBank, transferTool } from "../fixtures/bank.js";

function setup() {
  let now = 1_000;
  const ledger = new MemoryExecutionLedger({ now: () => now });
  const audit = new MemoryAuditLog();
  // The shared bank's payee-only transfer; a transfer to "ask" asks a question before it moves.
  const bank = newBank();
  const keys: string[] = [];
  const transfer = transferTool(bank, {
    payeeOnly: true,
    beforeMoving: ({ to }, ctx) => {
      keys.push(ctx.idempotencyKey);
      if (to === "ask") ctx.interrupt({ name: "confirm" });
    },
  });
  const make = (to = "bob") =>
    new Agent({
      model: new ScriptedModel({
        script: [{ toolCalls: [{ name: "transfer", input: { to }, id: "t1" }] }, { text: "done" }],
      }),
      tools: [transfer],
      ledger,
      audit,
    });
  const key = (to = "bob") => executionKey({ threadId: "th", toolUseId: "t1", input: { to } });
  /** A claim taken by a page that then died: its lease runs out with no result. */
  const lostClaim = async () => {
    await ledger.claim(await key(), { leaseMs: 10 });
    now += 11;
  };
  return { ledger, audit, runs: bank.started, keys, make, key, lostClaim, tick: (ms: number) => (now += ms) };
}

const state = () => ({ invocationState: { threadId: "th" } });
const answer = (id: string, response: JsonValue) => [{ interruptResponse: { interruptId: id, response } }];
const resultText = (agent: Agent) =>
  agent.messages
    .flatMap((m) => m.content)
    .flatMap((b) => (b.type === "toolResult" ? [[b.status, JSON.stringify(b.content)]] : []));

describe("outcome unknown", () => {
  test("the run pauses with an outcome_unknown question that names the call", async () => {
    const s = setup();
    await s.lostClaim();
    const agent = s.make();
    const r = await agent.invoke("pay", state());
    expect(r.stopReason).toBe("interrupt");
    expect(r.interrupts).toHaveLength(1);
    expect(r.interrupts[0]).toMatchObject({
      id: "tool:t1:outcome_unknown@1000",
      name: "outcome_unknown",
      reason: { kind: "outcome_unknown", tool: "transfer", toolUseId: "t1", input: { to: "bob" }, claimedAt: 1_000 },
    });
    expect(s.runs).toEqual([]);
    expect(agent.messages.flatMap((m) => m.content).some((b) => b.type === "toolUse")).toBe(false);
  });

  test.each([
    ["run_again", { action: "run_again" }, ["bob"], "success"],
    ["approved (the approval dialog)", { approved: true, status: "resolved" }, ["bob"], "success"],
    ["treat_as_done", { action: "treat_as_done" }, [], "success"],
    ["cancel", { action: "cancel" }, [], "error"],
    ["cancelled (AG-UI)", { status: "cancelled" }, [], "error"],
    ["an unreadable answer", { action: "maybe" }, [], "error"],
  ] as const)("answered %s", async (_label, response, runs, status) => {
    const s = setup();
    await s.lostClaim();
    const agent = s.make();
    await agent.invoke("pay", state());
    const r = await agent.invoke(answer("tool:t1:outcome_unknown@1000", response as JsonValue), state());
    expect(r.stopReason).toBe("endTurn");
    expect(s.runs).toEqual(runs);
    expectConsistentTranscript(agent.messages);
    expect(resultText(agent).map(([st]) => st)).toEqual([status]);
    // Decided once: the same call is never asked about (or run) again.
    const again = await s.make().invoke("pay", state());
    expect(again.stopReason).toBe("endTurn");
    expect(s.runs).toEqual(runs);
    // The trail says how the unknown outcome was answered, and that only a run_again ran it.
    const entries = await expectAuditMatchesRuns(s.audit, "th", s.keys);
    expect(auditKinds(entries)).toEqual([runs.length ? "execution:claimed" : "execution:unknown", "execution:done"]);
    const expected = runs.length
      ? "run_again"
      : (response as { action?: string }).action === "treat_as_done"
        ? "treat_as_done"
        : "cancel";
    expect(entries[0]).toMatchObject({ answer: expected });
  });

  test("'run it again' is about one lost claim: when the run again is lost too, the page is asked again", async () => {
    const s = setup();
    await s.lostClaim();
    const agent = s.make();
    const asked = await agent.invoke("pay", state());
    const first = asked.interrupts[0]?.id ?? "";
    // The page that answers "run it again" moves the money and dies before the result is recorded.
    const snapshot = JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState });
    const dying = s.make();
    dying.messages = JSON.parse(snapshot).messages;
    dying.interruptState = InterruptState.fromJSON(JSON.parse(snapshot).interrupts);
    s.ledger.settle = () => new Promise<void>(() => undefined);
    void dying.invoke(answer(first, { action: "run_again" }), state());
    await expect.poll(() => s.runs).toEqual(["bob"]);
    s.tick(16 * 60_000);
    // The next page continues from the same checkpoint, the same answer included: it is not about this claim.
    const next = s.make();
    next.messages = JSON.parse(snapshot).messages;
    next.interruptState = InterruptState.fromJSON(JSON.parse(snapshot).interrupts);
    const again = await next.invoke(answer(first, { action: "run_again" }), state());
    expect(s.runs).toEqual(["bob"]);
    expect(again.stopReason).toBe("interrupt");
    const question = again.interrupts.find((i) => i.name === "outcome_unknown");
    expect(question?.id).not.toBe(first);
    expect(question?.reason).toMatchObject({ toolUseId: "t1", claimedAt: 1_011 });
  });

  test("a claim that is still live ends the run with CALL_IN_PROGRESS and runs nothing", async () => {
    const s = setup();
    await s.ledger.claim(await s.key());
    const agent = s.make();
    const error = await agent.invoke("pay", state()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallInProgressError);
    expect((error as CallInProgressError).toolUseId).toBe("t1");
    expect(s.runs).toEqual([]);
    expectConsistentTranscript(agent.messages);
    expect(agent.running).toBe(false);
  });
});

describe("ToolContext.idempotencyKey", () => {
  test("is the call's ledger key, the same across a tool's own interrupt and its resume", async () => {
    const s = setup();
    const agent = s.make("ask");
    const r = await agent.invoke("pay", state());
    expect(r.stopReason).toBe("interrupt");
    await agent.invoke(answer(r.interrupts[0]!.id, true), state());
    expect(s.keys).toHaveLength(2);
    expect(s.keys[0]).toBe(s.keys[1]);
    expect(s.keys[0]).toBe(await s.key("ask"));
  });
});

describe("the public entry", () => {
  test("exports the question's name and the answer reader a front end needs", async () => {
    const core = await import("../../src/index.js");
    expect(core.OUTCOME_UNKNOWN).toBe("outcome_unknown");
    expect(core.readOutcomeAnswer({ action: "treat_as_done" })).toBe("treat_as_done");
    expect(core.readOutcomeAnswer({ approved: true })).toBe("run_again");
    expect(core.readOutcomeAnswer("yes")).toBe("cancel");
  });
});

describe("an answer given before the outcome_unknown question", () => {
  test("cannot be changed on its resume: run_again runs the call as approved, not with a new edit", async () => {
    let now = 1_000;
    const ledger = new MemoryExecutionLedger({ now: () => now });
    const bank = newBank();
    const pay = transferTool(bank, { result: () => "sent" });
    const make = () =>
      new Agent({
        model: new ScriptedModel({
          script: [{ toolCalls: [{ name: "transfer", input: { to: "bob", amount: 5 }, id: "t1" }] }, { text: "done" }],
        }),
        tools: [pay],
        ledger,
        hooks: [new InterruptHook([{ pattern: "transfer", subject: (_, i) => `to:${(i as { to: string }).to}` }])],
      });
    const agent = make();
    const asked = await agent.invoke("pay", state());
    const approval = asked.interrupts[0]?.id ?? "";
    // The page claimed the approved call and died before it settled.
    await ledger.claim(await executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob", amount: 5 } }), {
      leaseMs: 10,
    });
    now += 11;
    const unknown = await agent.invoke(answer(approval, { approved: true }), state());
    const question = unknown.interrupts.find((i) => i.name === "outcome_unknown");
    expect(question?.reason).toMatchObject({ input: { to: "bob", amount: 5 } });
    // A reload: a cold agent from the snapshot (the agent's own state is not in it).
    const cold = make();
    cold.messages = JSON.parse(JSON.stringify(agent.messages));
    cold.interruptState = InterruptState.fromJSON(JSON.parse(JSON.stringify(agent.interruptState)));
    const rewritten = [
      ...answer(question?.id ?? "", { action: "run_again" }),
      ...answer(approval, { approved: true, editedArgs: { to: "bob", amount: 5000 } }),
    ];
    await expect(cold.invoke(rewritten, state())).rejects.toMatchObject({ code: "UNKNOWN_INTERRUPT_ID" });
    expect(bank.transfers).toEqual([]);
    await cold.invoke(answer(question?.id ?? "", { action: "run_again" }), state());
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });
});
