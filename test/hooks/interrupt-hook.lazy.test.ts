/**
 * The gate's steps load on the first call a rule covers (hooks/approval/gate.ts). A load that fails
 * must fail that call closed (nothing runs unasked) and be tried again on the next one.
 */
import { describe, expect, test, vi } from "vitest";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { bank, callsThenAnswers, newAgent, silentLogger } from "./approval-fixtures.js";
import { hostState } from "./host-state.js";

const load = vi.hoisted(() => ({ failNext: true }));
vi.mock("../../src/hooks/approval/gate.js", async (importOriginal) => {
  if (load.failNext) {
    load.failNext = false;
    throw new Error("chunk load failed");
  }
  return importOriginal();
});

describe("the gate's module", () => {
  test("a failed load fails the gated call without running it; the next call loads it again", async () => {
    const hook = new InterruptHook(["transfer"], { logger: silentLogger() });
    const first = bank();
    const failing = newAgent(first, [hook], callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]));
    await expect(failing.invoke("pay", { invocationState: hostState() })).rejects.toThrow(
      /Hook InterruptHook failed on BeforeToolCallEvent/,
    );
    expect(first.transfers).toEqual([]);

    const second = bank();
    const agent = newAgent(second, [hook], callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]));
    const r = await agent.invoke("pay", { invocationState: hostState() });
    expect(r.stopReason).toBe("interrupt");
    expect(second.transfers).toEqual([]);
  });
});
