/**
 * kabooToolApproval and withLedger under `streamText` and `ToolLoopAgent` (the real AI SDK, its mock
 * language model): the question streams as a tool-approval-request, the approved call runs once.
 */
import { stepCountIs, streamText, ToolLoopAgent, type ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { approvalReason, kabooToolApproval, withLedger } from "../../src/ai-sdk/index.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import { answered, approvalRequests, bank, scriptedModel } from "./fixtures.js";

const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
const toBob = { toolName: "transfer", input: { to: "bob", cents: 5 } };

describe("with streamText", () => {
  it("streams the question, then runs the approved call once however often the answer is replayed", async () => {
    const { runs, tools } = bank();
    const model = scriptedModel([toBob]);
    const ledger = new MemoryExecutionLedger();
    const stream = async (messages: ModelMessage[]) => {
      const result = streamText({
        model,
        messages,
        tools: withLedger(tools, { ledger, threadId: "t1" }),
        toolApproval: kabooToolApproval({ rules: ["transfer"], ledger, threadId: "t1" }),
        stopWhen: stepCountIs(5),
      });
      const types: string[] = [];
      for await (const part of result.fullStream) types.push(part.type);
      return { types, messages: (await result.response).messages };
    };
    const first = await stream(pay);
    expect(first.types).toContain("tool-approval-request");
    expect(runs.transfer).toBe(0);
    const messages = answered(pay, first.messages, { approved: true });
    const second = await stream(messages);
    expect(second.types).toContain("tool-result");
    expect(runs.transfer).toBe(1);
    await stream(messages);
    expect(runs.transfer).toBe(1);
  });
});

describe("a client that goes away mid-call", () => {
  // The reader of the stream leaves while the approved transfer runs (a closed tab, a dropped connection): the
  // call goes on to its end and is recorded as done, never as cancelled; the same approval sent again runs
  // nothing and hands back what ran.
  it("the call runs on and is recorded; the approval sent again reads its result and runs nothing", async () => {
    let release = () => {};
    const slow = new Promise<void>((r) => (release = r));
    const { runs, tools } = bank({ slow });
    const model = scriptedModel([toBob]);
    const ledger = new MemoryExecutionLedger();
    const open = (messages: ModelMessage[], abortSignal?: AbortSignal) =>
      streamText({
        model,
        messages,
        ...(abortSignal ? { abortSignal } : {}),
        tools: withLedger(tools, { ledger, threadId: "t1" }),
        toolApproval: kabooToolApproval({ rules: ["transfer"], ledger, threadId: "t1" }),
        stopWhen: stepCountIs(5),
      });
    const first = open(pay);
    for await (const _ of first.fullStream);
    const messages = answered(pay, (await first.response).messages, { approved: true });
    // The second request's client leaves as soon as the call has started (the server passes the request's signal).
    const gone = new AbortController();
    const second = open(messages, gone.signal);
    const reading = (async () => {
      for await (const _ of second.fullStream);
    })().catch(() => undefined);
    await expect.poll(() => runs.transfer).toBe(1);
    gone.abort();
    await reading;
    release();
    // The same approval sent again: "in progress" while the call still runs, then its recorded result.
    const again = async () => {
      const r = open(messages);
      const types: string[] = [];
      const results: unknown[] = [];
      for await (const part of r.fullStream) {
        types.push(part.type);
        if (part.type === "tool-result") results.push(part.output);
      }
      return { types, results, text: JSON.stringify((await r.response).messages) };
    };
    let third = await again();
    for (let i = 0; i < 20 && !third.types.includes("tool-result"); i++) third = await again();
    expect(third.types).toContain("tool-result");
    expect(third.results).toEqual([expect.objectContaining({ sent: 5, to: "bob" })]);
    expect(third.text).not.toMatch(/cancel/i);
    expect(runs.transfer).toBe(1);
  });
});

describe("with ToolLoopAgent", () => {
  it("asks, remembers a thread approval, and the next call in the thread runs without asking", async () => {
    const { runs, tools } = bank();
    const model = scriptedModel([toBob, toBob]);
    const ledger = new MemoryExecutionLedger();
    const grants = new MemoryGrantStore();
    const agent = new ToolLoopAgent({
      model,
      tools: withLedger(tools, { ledger, threadId: "t1" }),
      toolApproval: kabooToolApproval({ rules: ["transfer"], grants, ledger, threadId: "t1", remember: "thread" }),
    });
    const first = await agent.generate({ messages: pay });
    expect(approvalRequests(first.response.messages)).toHaveLength(1);
    const reason = approvalReason({ scope: "thread" });
    await agent.generate({ messages: answered(pay, first.response.messages, { approved: true, reason }) });
    expect(runs.transfer).toBe(1);
    const next = await agent.generate({ messages: pay });
    expect(approvalRequests(next.response.messages).every((r) => r.isAutomatic === true)).toBe(true);
    expect(runs.transfer).toBe(2);
  });
});
