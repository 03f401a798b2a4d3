/**
 * The glob engine loads on the first lookup that needs it (hooks/glob.ts). A load that fails (a dropped
 * connection in a page) must fail that call closed and be tried again on the next one, as the gate's own
 * module is (interrupt-hook.lazy.test.ts): kept failed, every later call, gated or not, would fail.
 */
import { describe, expect, test, vi } from "vitest";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { bank, callsThenAnswers, newAgent, silentLogger } from "./approval-fixtures.js";
import { hostState } from "./host-state.js";

const load = vi.hoisted(() => ({ failNext: true }));
vi.mock("../../src/hooks/glob-matcher.js", async (importOriginal) => {
  if (load.failNext) {
    load.failNext = false;
    throw new Error("chunk load failed");
  }
  return importOriginal();
});

describe("the glob engine's module", () => {
  // Guards: a failed engine load is not kept (glob.ts's import promise and RuleIndex's matchers); before the
  // fix the second call failed too, and so did every call after it.
  test("a failed load fails the call without running it; the next call loads it again", async () => {
    const hook = new InterruptHook(["trans*"], { logger: silentLogger() });
    const first = bank();
    const failing = newAgent(first, [hook], callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]));
    await expect(failing.invoke("pay", { invocationState: hostState() })).rejects.toThrow(
      /Hook InterruptHook failed on BeforeToolCallEvent/,
    );
    expect(first.started).toEqual([]);

    const second = bank();
    const agent = newAgent(second, [hook], callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]));
    const r = await agent.invoke("pay", { invocationState: hostState() });
    expect(r.stopReason).toBe("interrupt");
    expect(second.started).toEqual([]);
    expect((await hook.ruleFor("balance")) ?? null).toBeNull();
  });
});
