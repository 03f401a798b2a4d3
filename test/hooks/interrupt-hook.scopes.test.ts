// Finding: the scope of an answer is clamped to the scopes recomputed for the *resume* run, not to
// the scopes the request actually offered (stored in the interrupt's reason). A request that offered
// only "once" (the asking run did not carry kaboo_grants) is recorded as an "always" decision when the
// resume run carries kaboo_grants — a remembered grant the person was never offered.
import { describe, expect, it } from "vitest";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { approvalDecisions } from "../../src/hooks/approval/run.js";
import { bank, callsThenAnswers, newAgent } from "./approval-fixtures.js";
import { hostState } from "./host-state.js";

describe("answer scope", () => {
  it("never exceeds the scopes the request offered", async () => {
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook([{ pattern: "transfer", remember: "always" }], { agentName: "bank" })],
      callsThenAnswers([{ name: "transfer", input: { to: "eve", amount: 5 } }]),
    );
    const r1 = await agent.invoke("pay", { invocationState: hostState({ publishes: true }) });
    expect((r1.interrupts[0]!.reason as { scopes: string[] }).scopes).toEqual(["once"]);
    const resumeState = hostState({ grants: [], publishes: true });
    await agent.invoke(
      [{ interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true, scope: "always" } } }],
      { invocationState: resumeState },
    );
    expect(b.transfers).toHaveLength(1);
    expect(approvalDecisions(resumeState).map((d) => d.scope)).toEqual(["once"]);
  });
});
