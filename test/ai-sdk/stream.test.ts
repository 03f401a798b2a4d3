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
