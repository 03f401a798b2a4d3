// Attack tests for the runner's synchronous path through the default MemoryExecutionLedger: the same
// resume twice (in one tick and one after the other), a ledger subclass that overrides claim or settle
// (it must be asked, not bypassed), and a retry after a failure at each step of the claim and the record.
import { describe, expect, test } from "vitest";
import {
  AfterToolCallEvent,
  Agent,
  executionKey,
  InterruptState,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  type ClaimOptions,
  type HookRegistry,
  type ClaimOutcome,
  type InterruptResponse,
  type LedgerResult,
  type ScriptedTurn,
} from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { expectConsistentTranscript } from "./helpers.js";
import { newBank, transferTool } from "../fixtures/bank.js";

/** The shared bank's payee-only transfer. */
function bank() {
  const b = newBank();
  return { sent: b.sent, transfer: transferTool(b, { payeeOnly: true }) };
}

const approveAll = (r: { interrupts: { id: string }[] }): InterruptResponse[] =>
  r.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: { approved: true } } }));

const pay: ScriptedTurn[] = [{ toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "t1" }] }, { text: "done" }];

/** A paused run on `ledger` and a function that makes a twin of it (another tab with the same snapshot). */
async function pausedRun(ledger: MemoryExecutionLedger, transfer: ReturnType<typeof bank>["transfer"]) {
  const make = (script: ScriptedTurn[]) =>
    new Agent({
      model: new ScriptedModel({ script }),
      tools: [transfer],
      hooks: [new InterruptHook(["transfer"])],
      ledger,
    });
  const first = make(pay);
  const paused = await first.invoke("pay", { invocationState: { threadId: "th" } });
  const snapshot = JSON.stringify({ messages: first.messages, interrupts: first.interruptState.toJSON() });
  const twin = () => {
    const agent = make([{ text: "done" }]);
    const { messages, interrupts } = JSON.parse(snapshot);
    agent.messages = messages;
    agent.interruptState = InterruptState.fromJSON(interrupts);
    return agent;
  };
  return { paused, twin };
}

/** Counts what the runner asks of it; each step can be made to fail once. */
class WatchedLedger extends MemoryExecutionLedger {
  readonly asked: string[] = [];
  failClaim = false;
  failSettle = false;
  override async claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    this.asked.push("claim");
    if (this.failClaim) {
      this.failClaim = false;
      throw new Error("ledger down at claim");
    }
    return super.claim(key, options);
  }
  override async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    this.asked.push("settle");
    if (this.failSettle) {
      this.failSettle = false;
      throw new Error("ledger down at settle");
    }
    return super.settle(key, token, result);
  }
}

describe("the default ledger's synchronous path", () => {
  test("the same resume twice in one tick, and once more after: the call runs once", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const { paused, twin } = await pausedRun(ledger, transfer);
    const [a, b] = [twin(), twin()];
    const outcomes = await Promise.allSettled([
      a.invoke(approveAll(paused), { invocationState: { threadId: "th" } }),
      b.invoke(approveAll(paused), { invocationState: { threadId: "th" } }),
    ]);
    const late = twin();
    await late.invoke(approveAll(paused), { invocationState: { threadId: "th" } });
    expect(sent).toEqual(["bob"]);
    for (const o of outcomes)
      if (o.status === "rejected") expect((o.reason as { code?: string }).code).toBe("CALL_IN_PROGRESS");
    // The late resume reads the recorded result instead of running the call.
    expect(late.messages.flatMap((m) => m.content).find((x) => x.type === "toolResult")).toMatchObject({
      status: "success",
      content: [{ type: "text", text: "sent to bob" }],
    });
    for (const agent of [a, b, late]) expectConsistentTranscript(agent.messages);
  });

  test("a subclass that overrides claim and settle is asked for every call", async () => {
    const { sent, transfer } = bank();
    const ledger = new WatchedLedger();
    const agent = new Agent({ model: new ScriptedModel({ script: pay }), tools: [transfer], ledger });
    await agent.invoke("pay", { invocationState: { threadId: "th" } });
    expect(sent).toEqual(["bob"]);
    expect(ledger.asked).toEqual(["claim", "settle"]);
  });

  test("a claim that fails runs nothing; the retry runs the call once", async () => {
    const { sent, transfer } = bank();
    const ledger = new WatchedLedger();
    const { paused, twin } = await pausedRun(ledger, transfer);
    ledger.failClaim = true;
    const failed = twin();
    await expect(failed.invoke(approveAll(paused), { invocationState: { threadId: "th" } })).rejects.toThrow();
    expect(sent).toEqual([]);
    // The failed run kept its pause: the same answer runs the call now, and a replay of it does not.
    await failed.invoke(approveAll(paused), { invocationState: { threadId: "th" } });
    await twin().invoke(approveAll(paused), { invocationState: { threadId: "th" } });
    expect(sent).toEqual(["bob"]);
    expectConsistentTranscript(failed.messages);
  });

  test("a record that fails after the call ran: no retry or replay runs it again", async () => {
    const { sent, transfer } = bank();
    const ledger = new WatchedLedger();
    const { paused, twin } = await pausedRun(ledger, transfer);
    ledger.failSettle = true;
    const first = twin();
    await first.invoke(approveAll(paused), { invocationState: { threadId: "th" } });
    expect(sent).toEqual(["bob"]);
    // The claim holds without a result: a replay of the same answer finds the call in progress.
    const replay = twin();
    await expect(replay.invoke(approveAll(paused), { invocationState: { threadId: "th" } })).rejects.toMatchObject({
      code: "CALL_IN_PROGRESS",
    });
    expect(sent).toEqual(["bob"]);
    expectConsistentTranscript(first.messages);
  });

  test("a hook that edits the result in place after the call ran: a replay reads what the tool returned", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const forge = {
      registerHooks(r: HookRegistry) {
        r.addCallback(AfterToolCallEvent, (e) => {
          const part = e.result.content[0];
          if (part?.type === "text") part.text = "forged";
        });
      },
    };
    const run = () =>
      new Agent({ model: new ScriptedModel({ script: pay }), tools: [transfer], hooks: [forge], ledger }).invoke(
        "pay",
        { invocationState: { threadId: "th" } },
      );
    await run();
    const replay = new Agent({ model: new ScriptedModel({ script: pay }), tools: [transfer], ledger });
    await replay.invoke("pay", { invocationState: { threadId: "th" } });
    await run();
    expect(sent).toEqual(["bob"]);
    expect(replay.messages.flatMap((m) => m.content).find((x) => x.type === "toolResult")).toMatchObject({
      content: [{ type: "text", text: "sent to bob" }],
    });
    const key = executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } });
    expect(await ledger.claim(key)).toEqual({
      status: "done",
      result: { status: "success", content: [{ type: "text", text: "sent to bob" }] },
    });
  });

  test("with an audit trail, the synchronous path records one execution of the call, and a replay none", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const audit = new MemoryAuditLog();
    const run = () =>
      new Agent({ model: new ScriptedModel({ script: pay }), tools: [transfer], ledger, audit }).invoke("pay", {
        invocationState: { threadId: "th" },
      });
    await run();
    await run();
    expect(sent).toEqual(["bob"]);
    const key = executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } });
    const executions = (await audit.entries("th")).filter((e) => e.kind === "execution");
    expect(executions.map((e) => e.kind === "execution" && [e.claim, e.idempotencyKey])).toEqual([
      ["claimed", key],
      ["done", key],
    ]);
  });

  test("a batch whose calls claim in one tick: each runs once, and a second run of the batch runs none", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const batch: ScriptedTurn[] = [
      { toolCalls: ["a", "b", "c", "d"].map((to, i) => ({ name: "transfer", input: { to }, id: `t${i}` })) },
      { text: "done" },
    ];
    const run = () =>
      new Agent({ model: new ScriptedModel({ script: batch }), tools: [transfer], ledger }).invoke("pay", {
        invocationState: { threadId: "th" },
      });
    await Promise.all([run(), run().catch((e: { code?: string }) => expect(e.code).toBe("CALL_IN_PROGRESS"))]);
    await run();
    expect([...sent].sort()).toEqual(["a", "b", "c", "d"]);
  });
});
