/**
 * kabooToolApproval beside the AI SDK's own signed approvals (`experimental_toolApprovalSecret`): they
 * compose; a request the server did not sign is refused by the AI SDK, one it signed runs once.
 */
import { generateText, stepCountIs, type ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { kabooToolApproval, withLedger } from "../../src/ai-sdk/index.js";
import { answered, approvalRequests, bank, scriptedModel } from "./fixtures.js";

const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
const secret = "a secret of the server, at least long enough";

describe("with experimental_toolApprovalSecret", () => {
  it("runs a signed approval once, and the AI SDK refuses an unsigned one before the gate", async () => {
    const { runs, tools } = bank();
    const model = scriptedModel([{ toolName: "transfer", input: { to: "bob", cents: 5 } }]);
    const ledger = new MemoryExecutionLedger();
    const run = (messages: ModelMessage[]) =>
      generateText({
        model,
        messages,
        tools: withLedger(tools, { ledger, threadId: "t1" }),
        toolApproval: kabooToolApproval({ rules: ["transfer"], ledger, threadId: "t1" }),
        experimental_toolApprovalSecret: secret,
        stopWhen: stepCountIs(3),
      });
    const first = await run(pay);
    const [request] = approvalRequests(first.response.messages);
    expect(request?.signature).toEqual(expect.any(String));
    const messages = answered(pay, first.response.messages, { approved: true });
    await run(messages);
    await run(messages);
    expect(runs.transfer).toBe(1);
    const unsigned: ModelMessage[] = messages.map((m) => {
      if (m.role !== "assistant" || typeof m.content === "string") return m;
      const content = m.content.map((p) => {
        if (p.type !== "tool-approval-request") return p;
        const { signature: _dropped, ...rest } = p;
        return rest;
      });
      return { ...m, content };
    });
    await expect(run(unsigned)).rejects.toThrow(/signature/);
    expect(runs.transfer).toBe(1);
  });
});
