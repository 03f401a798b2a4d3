// Attack tests for "a tool runs exactly once per approval" (each one failed on the runner before the
// execution ledger): a throw after the call ran, a partial batch, MessageAdded, AfterInvocation, and
// two invocations of one thread at once.
import { describe, expect, test } from "vitest";
import {
  AfterInvocationEvent,
  AfterToolCallEvent,
  Agent,
  BeforeToolCallEvent,
  InterruptState,
  KabooError,
  MemoryAuditLog,
  MemoryExecutionLedger,
  MessageAddedEvent,
  ScriptedModel,
  type InterruptResponse,
  type ScriptedTurn,
} from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { expectAuditMatchesRuns } from "./audit-helpers.js";
import { expectConsistentTranscript } from "./helpers.js";
import { newBank, transferTool } from "../fixtures/bank.js";

/** The shared bank's payee-only transfer; `keys` holds the idempotency key of every run. */
function bank() {
  const b = newBank();
  const keys: string[] = [];
  const transfer = transferTool(b, {
    payeeOnly: true,
    beforeMoving: (_, ctx) => void keys.push(ctx.idempotencyKey ?? "(none)"),
  });
  return { sent: b.sent, keys, transfer };
}

/** One transfer to bob (call t1), then "done". */
const payBob: ScriptedTurn[] = [
  { toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "t1" }] },
  { text: "done" },
];

const approveAll = (r: { interrupts: { id: string }[] }): InterruptResponse[] =>
  r.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: { approved: true } } }));

function agentWith(
  script: ScriptedTurn[],
  transfer: ReturnType<typeof bank>["transfer"],
  ledger = new MemoryExecutionLedger(),
  audit = new MemoryAuditLog(),
) {
  const hooks = [new InterruptHook(["transfer"])];
  return new Agent({ model: new ScriptedModel({ script }), tools: [transfer], hooks, ledger, audit });
}

/** The agent's audit trail (of `threadId`) records exactly the runs the tool saw. */
const expectTrail = (agent: Agent, keys: string[], threadId = "") =>
  expectAuditMatchesRuns(agent.audit ?? new MemoryAuditLog(), threadId, keys);

const payTwo: ScriptedTurn[] = [
  {
    toolCalls: [
      { name: "transfer", input: { to: "a" }, id: "ta" },
      { name: "transfer", input: { to: "b" }, id: "tb" },
    ],
  },
  { text: "paid" },
];

describe("a failure after an approved call ran", () => {
  test("an AfterToolCall hook that throws, then the documented retry: the transfer ran once", async () => {
    const { sent, keys, transfer } = bank();
    const agent = agentWith(payBob, transfer);
    let fail = true;
    agent.hooks.addCallback(AfterToolCallEvent, () => {
      if (fail) {
        fail = false;
        throw new Error("audit log down");
      }
    });
    const answers = approveAll(await agent.invoke("pay bob"));
    await expect(agent.invoke(answers)).rejects.toThrow(/audit log down/);
    const retried = await agent.invoke(answers);
    expect(retried.stopReason).toBe("endTurn");
    expect(sent).toEqual(["bob"]);
    expect(keys).toHaveLength(1);
    await expectTrail(agent, keys);
    expectConsistentTranscript(agent.messages);
    const results = agent.messages.flatMap((m) => m.content).filter((b) => b.type === "toolResult");
    expect(results).toEqual([
      { type: "toolResult", toolUseId: "t1", status: "success", content: [{ type: "text", text: "sent to bob" }] },
    ]);
  });

  test("a concurrent batch, both approved, a slow hook fails on b after a ran: the error names what ran; the retry runs only b", async () => {
    const { sent, keys, transfer } = bank();
    const agent = agentWith(payTwo, transfer);
    let fail = true;
    agent.hooks.addCallback(BeforeToolCallEvent, async (e) => {
      if (fail && (e.toolUse.input as { to: string }).to === "b" && agent.interruptState.activated) {
        await new Promise((r) => setTimeout(r, 20));
        if (sent.includes("a")) {
          fail = false;
          throw new Error("slow hook failed");
        }
      }
    });
    const answers = approveAll(await agent.invoke("pay a and b"));
    const error = (await agent.invoke(answers).catch((e: unknown) => e)) as Error & {
      code?: string;
      ran?: unknown;
      notRun?: unknown;
    };
    expect(error.code).toBe("TOOL_BATCH_FAILED");
    expect(error.ran).toEqual([{ toolUseId: "ta", name: "transfer" }]);
    expect(error.notRun).toEqual([{ toolUseId: "tb", name: "transfer" }]);
    expect(error.message).toMatch(/slow hook failed/);
    const retried = await agent.invoke(answers);
    expect(retried.stopReason).toBe("endTurn");
    expect([...sent].sort()).toEqual(["a", "b"]);
    await expectTrail(agent, keys);
    expectConsistentTranscript(agent.messages);
    expect(agent.messages[0]?.role).toBe("user");
    expect(agent.messages.flatMap((m) => m.content).filter((b) => b.type === "toolResult")).toHaveLength(2);
  });

  test("a fresh batch that fails part way keeps what ran in the transcript and can run again", async () => {
    const { sent, transfer } = bank();
    const agent = new Agent({
      model: new ScriptedModel({ script: payTwo }),
      tools: [transfer],
      toolExecutor: "sequential",
    });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      if ((e.toolUse.input as { to: string }).to === "b") throw new Error("hook broke on b");
    });
    const error = (await agent.invoke("pay").catch((e: unknown) => e)) as { code?: string };
    expect(error.code).toBe("TOOL_BATCH_FAILED");
    expectConsistentTranscript(agent.messages);
    const results = agent.messages.flatMap((m) => m.content).filter((b) => b.type === "toolResult");
    expect(results.map((r) => [r.toolUseId, r.status])).toEqual([
      ["ta", "success"],
      ["tb", "error"],
    ]);
    expect(sent).toEqual(["a"]);
    agent.model = new ScriptedModel({ script: [{ text: "ok" }] });
    expect((await agent.invoke("again")).stopReason).toBe("endTurn");
  });
});

describe("the transcript after a throw at MessageAdded", () => {
  test("never holds a toolUse without its toolResult", async () => {
    const { transfer } = bank();
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "transfer", input: { to: "x" } }] }] }),
      tools: [transfer],
    });
    agent.hooks.addCallback(MessageAddedEvent, (e) => {
      if (e.message.content.some((b) => b.type === "toolUse")) throw new Error("listener broke");
    });
    await expect(agent.invoke("go")).rejects.toThrow(/listener broke/);
    expectConsistentTranscript(agent.messages);
    expect(agent.messages.flatMap((m) => m.content).some((b) => b.type === "toolUse")).toBe(true);
  });
});

describe("AfterInvocation", () => {
  test("every callback runs when one throws, and their errors are reported together", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "hi" }] }) });
    const ran: string[] = [];
    agent.hooks.addCallback(AfterInvocationEvent, function publisherClose() {
      ran.push("close");
      throw new Error("close failed");
    });
    agent.hooks.addCallback(AfterInvocationEvent, function sessionSave() {
      ran.push("save");
    });
    agent.hooks.addCallback(AfterInvocationEvent, function cleanup() {
      ran.push("cleanup");
      throw new Error("cleanup failed");
    });
    const error = (await agent.invoke("x").catch((e: unknown) => e)) as Error & { code?: string; errors?: unknown[] };
    expect(ran).toEqual(["cleanup", "save", "close"]);
    expect(error).toBeInstanceOf(KabooError);
    expect(error.code).toBe("HOOKS_FAILED");
    expect(error.errors).toHaveLength(2);
    expect(error.message).toMatch(/cleanup failed/);
    expect(error.message).toMatch(/close failed/);
  });
});

describe("the ledger decides", () => {
  test("two invocations of one thread at once over one ledger: the approved call runs once", async () => {
    const { sent, keys, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const audit = new MemoryAuditLog();
    const script = payBob;
    const first = agentWith(script, transfer, ledger, audit);
    const state = { threadId: "thread-1" };
    const paused = await first.invoke("pay", { invocationState: { ...state } });
    const snapshot = JSON.parse(
      JSON.stringify({ messages: first.messages, interrupts: first.interruptState.toJSON() }),
    );
    const twin = agentWith([{ text: "done" }], transfer, ledger, audit);
    twin.messages = snapshot.messages;
    twin.interruptState = InterruptState.fromJSON(snapshot.interrupts);
    first.model = new ScriptedModel({ script: [{ text: "done" }] });
    const outcomes = await Promise.allSettled([
      first.invoke(approveAll(paused), { invocationState: { ...state } }),
      twin.invoke(approveAll(paused), { invocationState: { ...state } }),
    ]);
    expect(sent).toEqual(["bob"]);
    await expectAuditMatchesRuns(audit, "thread-1", keys);
    for (const o of outcomes)
      if (o.status === "rejected") expect((o.reason as { code?: string }).code).toBe("CALL_IN_PROGRESS");
    expectConsistentTranscript(first.messages);
    expectConsistentTranscript(twin.messages);
  });

  test("two tabs answer one approval differently (one edits the amount): the call still runs once", async () => {
    const b = newBank();
    const pay = transferTool(b);
    const ledger = new MemoryExecutionLedger();
    const gate = () =>
      new InterruptHook([{ pattern: "transfer", subject: (_, i) => `to:${(i as { to: string }).to}` }]);
    const make = (script: ScriptedTurn[]) =>
      new Agent({ model: new ScriptedModel({ script }), tools: [pay], hooks: [gate()], ledger });
    const tabA = make([
      { toolCalls: [{ name: "transfer", input: { to: "bob", amount: 900 }, id: "t1" }] },
      { text: "done" },
    ]);
    const state = { threadId: "thread-1" };
    const paused = await tabA.invoke("pay", { invocationState: { ...state } });
    const snapshot = JSON.parse(JSON.stringify({ messages: tabA.messages, interrupts: tabA.interruptState.toJSON() }));
    const tabB = make([{ text: "done" }]);
    tabB.messages = snapshot.messages;
    tabB.interruptState = InterruptState.fromJSON(snapshot.interrupts);
    const id = paused.interrupts[0]?.id ?? "";
    const answer = (response: unknown): InterruptResponse[] => [
      {
        interruptResponse: {
          interruptId: id,
          response: response as InterruptResponse["interruptResponse"]["response"],
        },
      },
    ];
    await tabA.invoke(answer({ approved: true, editedArgs: { to: "bob", amount: 500 } }), {
      invocationState: { ...state },
    });
    await tabB.invoke(answer({ approved: true }), { invocationState: { ...state } });
    expect(b.transfers).toEqual([{ to: "bob", amount: 500 }]);
    expectConsistentTranscript(tabB.messages);
  });

  test("a call the ledger holds as done is not run again: its recorded result goes into the transcript", async () => {
    const { sent, keys, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const audit = new MemoryAuditLog();
    const script = payBob;
    const a = new Agent({ model: new ScriptedModel({ script }), tools: [transfer], ledger, audit });
    await a.invoke("pay", { invocationState: { threadId: "t" } });
    const b = new Agent({ model: new ScriptedModel({ script }), tools: [transfer], ledger, audit });
    await b.invoke("pay", { invocationState: { threadId: "t" } });
    expect(sent).toEqual(["bob"]);
    await expectAuditMatchesRuns(audit, "t", keys);
    expect(b.messages.flatMap((m) => m.content).find((x) => x.type === "toolResult")).toMatchObject({
      status: "success",
      content: [{ type: "text", text: "sent to bob" }],
    });
  });
});
