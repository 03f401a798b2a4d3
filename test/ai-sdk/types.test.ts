/** The adapter's types against the AI SDK's: what an app writes compiles, and tool types survive. */
import { tool, type ToolApprovalConfiguration, type ToolSet } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import * as z from "zod/v4";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { kabooToolApproval, type LedgeredExecutionOptions, withLedger } from "../../src/ai-sdk/index.js";

const tools = {
  transfer: tool({
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    execute: async ({ to }) => ({ sent: to }),
  }),
};

describe("types", () => {
  it("withLedger keeps the tool set's type, and kabooToolApproval is a toolApproval for it", () => {
    const ledger = new MemoryExecutionLedger();
    const wrapped = withLedger(tools, { ledger, threadId: "t1" });
    expectTypeOf(wrapped).toEqualTypeOf<typeof tools>();
    const approval = kabooToolApproval({ rules: ["transfer"], ledger, threadId: "t1" });
    expectTypeOf(approval).toExtend<ToolApprovalConfiguration<typeof tools, Record<string, unknown>>>();
    expectTypeOf(approval).not.toExtend<(o: { toolCall: { input: string } }) => string>();
    expectTypeOf(approval).toExtend<ToolApprovalConfiguration<ToolSet, Record<string, unknown>>>();
  });

  it("a ledgered tool's options carry the idempotency key", () => {
    expectTypeOf<LedgeredExecutionOptions["idempotencyKey"]>().toEqualTypeOf<string>();
    expectTypeOf<LedgeredExecutionOptions["toolCallId"]>().toEqualTypeOf<string>();
  });
});
