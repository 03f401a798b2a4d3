/** The approval reason's wire format, and where the adapter finds an answer in the messages. */
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { answerFor, approvalReason, readApprovalReason } from "../../src/ai-sdk/index.js";

describe("approvalReason", () => {
  it("carries each scope to readApprovalReason", () => {
    for (const scope of ["once", "thread", "always"] as const) {
      expect(readApprovalReason(approvalReason({ scope, note: "ok" }))).toBe(scope);
    }
  });

  it("reads anything else as once", () => {
    for (const reason of [
      undefined,
      "always",
      "{not json",
      '{"scope":"always"}',
      '{"kaboo_approval":2,"scope":"always"}',
      '{"kaboo_approval":1,"scope":"forever"}',
      "null",
    ]) {
      expect(readApprovalReason(reason)).toBe("once");
    }
  });
});

describe("answerFor", () => {
  const history: ModelMessage[] = [
    { role: "user", content: "pay" },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "c1", toolName: "transfer", input: {} },
        { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
        { type: "tool-call", toolCallId: "c2", toolName: "transfer", input: {} },
        { type: "tool-approval-request", approvalId: "a2", toolCallId: "c2" },
      ],
    },
  ];
  const response = (approvalId: string, approved: boolean): ModelMessage => ({
    role: "tool",
    content: [{ type: "tool-approval-response", approvalId, approved, reason: "r" }],
  });

  it("finds the answer to this call's request in the last message", () => {
    const messages = [...history, response("a2", true)];
    expect(answerFor(messages, "c2")).toEqual({ approvalId: "a2", approved: true, reason: "r" });
    expect(answerFor(messages, "c1")).toBeUndefined();
  });

  it("ignores an answer that is not the last message (an old answer to a reused call id)", () => {
    const messages: ModelMessage[] = [...history, response("a1", true), { role: "user", content: "again" }];
    expect(answerFor(messages, "c1")).toBeUndefined();
  });
});
