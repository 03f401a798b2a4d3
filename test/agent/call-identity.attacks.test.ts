// Attack tests for how the runner names a call in the default MemoryExecutionLedger: whatever form of the
// call's identity each side uses (the runner's own, or the `kw1-` execution key that a host, a Stop at the
// edge or a test computes), one call is one record. A look-up by key before, between and after the runner's
// claims; a claim by key that the runner must then respect; arguments too long to keep as they are; the same
// ledger answering both at once; a subclass that must keep seeing execution keys.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  executionKey,
  MemoryExecutionLedger,
  ScriptedModel,
  tool,
  type ClaimOptions,
  type ClaimOutcome,
  type LedgerResult,
  type ScriptedTurn,
  type ToolContext,
} from "../../src/index.js";
import { expectConsistentTranscript } from "./helpers.js";
import { newBank, transferTool } from "../fixtures/bank.js";

/** The shared bank's payee-only transfer; `contexts` holds what each run was given. */
function bank() {
  const b = newBank();
  const contexts: ToolContext[] = [];
  const transfer = transferTool(b, { payeeOnly: true, beforeMoving: (_, ctx) => void contexts.push(ctx) });
  return { sent: b.sent, contexts, transfer };
}

const pay = (to: string, id = "t1"): ScriptedTurn[] => [
  { toolCalls: [{ name: "transfer", input: { to }, id }] },
  { text: "done" },
];
const run = (ledger: MemoryExecutionLedger, transfer: ReturnType<typeof bank>["transfer"], script: ScriptedTurn[]) => {
  const agent = new Agent({ model: new ScriptedModel({ script }), tools: [transfer], ledger });
  return agent.invoke("pay", { invocationState: { threadId: "th" } }).then(() => agent);
};
const keyOf = (to: string, id = "t1") => executionKey({ threadId: "th", toolUseId: id, input: { to } });
const sentTo = (to: string) => ({ status: "success", content: [{ type: "text", text: `sent to ${to}` }] });

describe("one call is one record in the memory ledger, however it is named", () => {
  test("a call the runner ran is done under its execution key, and a replay after that look-up runs nothing", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    await run(ledger, transfer, pay("bob"));
    expect(await ledger.claim(keyOf("bob"))).toEqual({ status: "done", result: sentTo("bob") });
    const replay = await run(ledger, transfer, pay("bob"));
    expect(sent).toEqual(["bob"]);
    expectConsistentTranscript(replay.messages);
  });

  test("a claim by execution key before the runner's (a Stop that holds the call) keeps the call from running", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const held = await ledger.claim(keyOf("bob"));
    expect(held.status).toBe("claimed");
    await expect(run(ledger, transfer, pay("bob"))).rejects.toMatchObject({ code: "CALL_IN_PROGRESS" });
    expect(sent).toEqual([]);
    // Settled by key, the runner reads that result instead of running the call.
    if (held.status !== "claimed") throw new Error("expected a claim");
    await ledger.settle(keyOf("bob"), held.token, { status: "success", content: [{ type: "text", text: "by key" }] });
    const replay = await run(ledger, transfer, pay("bob"));
    expect(sent).toEqual([]);
    expect(replay.messages.flatMap((m) => m.content).find((x) => x.type === "toolResult")).toMatchObject({
      content: [{ type: "text", text: "by key" }],
    });
  });

  test("calls the runner ran before a look-up by key are still found by the runner after it, and the same ledger answers both", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    await run(ledger, transfer, pay("ann", "a1"));
    await run(ledger, transfer, pay("bob", "b1"));
    // A key look-up of another call, then of one the runner ran: both see the runner's records.
    expect((await ledger.claim(keyOf("cy", "c1"))).status).toBe("claimed");
    expect(await ledger.claim(keyOf("ann", "a1"))).toEqual({ status: "done", result: sentTo("ann") });
    await run(ledger, transfer, pay("ann", "a1"));
    await run(ledger, transfer, pay("bob", "b1"));
    await expect(run(ledger, transfer, pay("cy", "c1"))).rejects.toMatchObject({ code: "CALL_IN_PROGRESS" });
    await run(ledger, transfer, pay("dan", "d1"));
    await run(ledger, transfer, pay("dan", "d1"));
    expect(sent).toEqual(["ann", "bob", "dan"]);
    expect(await ledger.claim(keyOf("dan", "d1"))).toEqual({ status: "done", result: sentTo("dan") });
  });

  test("arguments too long to keep as they are: the call runs once, and is found by its key", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    const long = "x".repeat(5000);
    await run(ledger, transfer, pay(long));
    await run(ledger, transfer, pay(long));
    expect(sent).toEqual([long]);
    expect(await ledger.claim(keyOf(long))).toEqual({ status: "done", result: sentTo(long) });
    await run(ledger, transfer, pay(long));
    expect(sent).toEqual([long]);
  });

  test("arguments with quotes, escapes and other scripts are one call whichever side names it first", async () => {
    const { sent, transfer } = bank();
    const odd = 'b"o\\b\u0001 \u00e9\u4e16 \ud83d\udcb8';
    const first = new MemoryExecutionLedger();
    await run(first, transfer, pay(odd));
    expect(await first.claim(keyOf(odd))).toEqual({ status: "done", result: sentTo(odd) });
    const second = new MemoryExecutionLedger();
    const held = await second.claim(keyOf(odd));
    await expect(run(second, transfer, pay(odd))).rejects.toMatchObject({ code: "CALL_IN_PROGRESS" });
    expect(held.status).toBe("claimed");
    expect(sent).toEqual([odd]);
  });

  test("a batch that runs while a look-up by key comes in between its calls: each call runs once", async () => {
    const { sent, transfer } = bank();
    const ledger = new MemoryExecutionLedger();
    let started = () => {};
    const slowStarted = new Promise<void>((r) => {
      started = r;
    });
    const slow = tool({
      name: "slow",
      description: "waits",
      inputSchema: z.object({}),
      callback: async () => {
        started();
        await new Promise((r) => setTimeout(r, 5));
        return "slow";
      },
    });
    const batch: ScriptedTurn[] = [
      {
        toolCalls: [
          { name: "transfer", input: { to: "ann" }, id: "t0" },
          { name: "slow", input: {}, id: "s0" },
          { name: "transfer", input: { to: "bob" }, id: "t1" },
        ],
      },
      { text: "done" },
    ];
    const go = () =>
      new Agent({ model: new ScriptedModel({ script: batch }), tools: [transfer, slow], ledger }).invoke("pay", {
        invocationState: { threadId: "th" },
      });
    const running = go();
    await slowStarted;
    // While "slow" runs, someone looks its key up: it is running, not free to claim.
    const look = await ledger.claim(executionKey({ threadId: "th", toolUseId: "s0", input: {} }));
    await running;
    expect(look.status).toBe("running");
    await go();
    expect([...sent].sort()).toEqual(["ann", "bob"]);
  });

  test("the tool's idempotency key is the call's execution key, and a copy of its context keeps it", async () => {
    const { contexts, transfer } = bank();
    await run(new MemoryExecutionLedger(), transfer, pay("bob"));
    const [ctx] = contexts;
    expect(ctx?.idempotencyKey).toBe(keyOf("bob"));
    expect({ ...ctx }.idempotencyKey).toBe(keyOf("bob"));
  });
});

/** Records the keys it is asked with. */
class KeyedLedger extends MemoryExecutionLedger {
  readonly keys: string[] = [];
  override async claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    this.keys.push(key);
    return super.claim(key, options);
  }
  override async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    this.keys.push(key);
    return super.settle(key, token, result);
  }
}

test("a subclass of the memory ledger is asked with the call's execution key, and runs the call once", async () => {
  const { sent, transfer } = bank();
  const ledger = new KeyedLedger();
  await run(ledger, transfer, pay("bob"));
  await run(ledger, transfer, pay("bob"));
  expect(sent).toEqual(["bob"]);
  expect(ledger.keys).toEqual([keyOf("bob"), keyOf("bob"), keyOf("bob")]);
});

test("a memory ledger with a method replaced on the instance is asked with execution keys", async () => {
  const { sent, transfer } = bank();
  const ledger = new MemoryExecutionLedger();
  const keys: string[] = [];
  const release = ledger.release.bind(ledger);
  ledger.release = (key: string, token: string) => {
    keys.push(key);
    return release(key, token);
  };
  const settle = ledger.settle.bind(ledger);
  ledger.settle = (key, token, result) => {
    keys.push(key);
    return settle(key, token, result);
  };
  await run(ledger, transfer, pay("bob"));
  await run(ledger, transfer, pay("bob"));
  expect(sent).toEqual(["bob"]);
  expect(keys).toEqual([keyOf("bob")]);
});
