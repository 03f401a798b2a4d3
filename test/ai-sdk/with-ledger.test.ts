/** withLedger on real AI SDK tools, called as the AI SDK calls `execute`. */
import { generateText, stepCountIs, tool, type ToolExecutionOptions } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { executionKey } from "../../src/agent/ledger/ledger.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { CallOutcomeUnknownError, RecordedCallFailureError, withLedger } from "../../src/ai-sdk/index.js";
import { CallInProgressError } from "../../src/errors.js";
import { lastToolResults, scriptedModel } from "./fixtures.js";

const opts = (toolCallId: string): ToolExecutionOptions<unknown> => ({ toolCallId, messages: [], context: undefined });
const input = { to: "bob", cents: 5 };
type Exec = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;
const execOf = (t: unknown) => (t as { execute: Exec }).execute;

describe("withLedger", () => {
  it("hands the tool its idempotency key, records its result and replays it without running it again", async () => {
    const seen: string[] = [];
    const tools = {
      transfer: tool({
        inputSchema: z.object({ to: z.string(), cents: z.number() }),
        execute: async (_, o) => {
          seen.push((o as unknown as { idempotencyKey: string }).idempotencyKey);
          return { ok: seen.length };
        },
      }),
    };
    const ledger = new MemoryExecutionLedger();
    const run = execOf(withLedger(tools, { ledger, threadId: "t1" }).transfer);
    expect(await run(input, opts("c1"))).toEqual({ ok: 1 });
    expect(await run(input, opts("c1"))).toEqual({ ok: 1 });
    expect(seen).toEqual([executionKey({ threadId: "t1", toolUseId: "c1", input })]);
    // Another call id, other arguments or another thread is another call.
    await run(input, opts("c2"));
    await run({ ...input, cents: 6 }, opts("c1"));
    await execOf(withLedger(tools, { ledger, threadId: "t2" }).transfer)(input, opts("c1"));
    expect(new Set(seen).size).toBe(4);
  });

  it("records a failure and throws it again on a replay, without running the tool", async () => {
    let runs = 0;
    const tools = {
      fail: tool({
        inputSchema: z.object({}),
        execute: async (): Promise<string> => {
          runs++;
          throw new Error("bank said no");
        },
      }),
    };
    const run = execOf(withLedger(tools, { ledger: new MemoryExecutionLedger(), threadId: "t1" }).fail);
    await expect(run({}, opts("c1"))).rejects.toThrow("bank said no");
    const replay = run({}, opts("c1"));
    await expect(replay).rejects.toBeInstanceOf(RecordedCallFailureError);
    await expect(replay).rejects.toThrow(/already ran and failed.*bank said no/);
    expect(runs).toBe(1);
  });

  it("streams a streaming tool as before and records its last value", async () => {
    let runs = 0;
    const tools = {
      progress: tool({
        inputSchema: z.object({}),
        async *execute() {
          runs++;
          yield { step: 1 };
          yield { step: 2 };
        },
      }),
    };
    const run = execOf(withLedger(tools, { ledger: new MemoryExecutionLedger(), threadId: "t1" }).progress);
    const drain = async (stream: unknown) => {
      // The AI SDK streams a tool only when execute returns the iterable itself, not a promise of it.
      expect(stream).not.toBeInstanceOf(Promise);
      const values: unknown[] = [];
      for await (const v of stream as AsyncIterable<unknown>) values.push(v);
      return values;
    };
    expect(await drain(run({}, opts("c1")))).toEqual([{ step: 1 }, { step: 2 }]);
    expect(await drain(run({}, opts("c1")))).toEqual([{ step: 2 }]);
    expect(runs).toBe(1);
  });

  it("keeps a streaming tool streaming under generateText: the model reads its last value", async () => {
    let runs = 0;
    const tools = {
      transfer: tool({
        inputSchema: z.object({ to: z.string(), cents: z.number() }),
        async *execute({ to }) {
          runs++;
          yield { status: "pending", to };
          yield { status: "sent", to };
        },
      }),
    };
    const ledger = new MemoryExecutionLedger();
    const model = scriptedModel([{ toolName: "transfer", input: { to: "bob", cents: 5 } }]);
    const run = () =>
      generateText({
        model,
        messages: [{ role: "user", content: "pay bob" }],
        tools: withLedger(tools, { ledger, threadId: "t1" }),
        stopWhen: stepCountIs(2),
      });
    await run();
    expect(lastToolResults(model)).toEqual([
      { toolCallId: "call-1", output: { type: "json", value: { status: "sent", to: "bob" } } },
    ]);
    expect(runs).toBe(1);
  });

  it("never runs a call another holder is running, nor one whose outcome is unknown", async () => {
    let runs = 0;
    let clock = 1_000_000;
    const ledger = new MemoryExecutionLedger({ now: () => clock });
    const tools = {
      transfer: tool({
        inputSchema: z.object({ to: z.string(), cents: z.number() }),
        execute: async () => ++runs,
      }),
    };
    const run = execOf(withLedger(tools, { ledger, threadId: "t1" }).transfer);
    const key = executionKey({ threadId: "t1", toolUseId: "c1", input });
    expect((await ledger.claim(key, { leaseMs: 1000 })).status).toBe("claimed");
    await expect(run(input, opts("c1"))).rejects.toBeInstanceOf(CallInProgressError);
    clock += 2000;
    const unknown = run(input, opts("c1"));
    await expect(unknown).rejects.toBeInstanceOf(CallOutcomeUnknownError);
    await expect(unknown).rejects.toMatchObject({
      code: "CALL_OUTCOME_UNKNOWN",
      toolCallId: "c1",
      claimedAt: 1_000_000,
    });
    expect(runs).toBe(0);
  });

  it("keeps tools without execute (client-side tools) as they are", () => {
    const client = tool({ inputSchema: z.object({ q: z.string() }), outputSchema: z.string() });
    const wrapped = withLedger({ client }, { ledger: new MemoryExecutionLedger(), threadId: "t1" });
    expect(wrapped.client).toBe(client);
  });
});
