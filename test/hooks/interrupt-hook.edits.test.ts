import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { InterruptState, ScriptedModel } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import type { ApprovalRequest } from "../../src/hooks/approval/request.js";
import { answer, bank, callsThenAnswers, newAgent } from "./approval-fixtures.js";
import { hostState } from "./host-state.js";

const toRecipient = (_: string, input: unknown) => {
  const to = (input as { to: string }).to;
  return { key: `to:${to}`, label: `transfers to ${to}` };
};
const gate = () => new InterruptHook([{ pattern: "transfer", subject: toRecipient, remember: "always" }]);
const transferTo = (to: string, amount = 1) => callsThenAnswers([{ name: "transfer", input: { to, amount } }]);

describe("edited arguments", () => {
  test.each(["editedArgs", "tool_input"])(
    "%s replace the arguments; the transcript shows the call as it ran",
    async (key) => {
      const b = bank();
      const agent = newAgent(b, [gate()], transferTo("alice", 5));
      const r1 = await agent.invoke("go");
      await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true, [key]: { to: "alice", amount: 3 } })]);
      expect(b.transfers).toEqual([{ to: "alice", amount: 3 }]);
      const use = agent.messages.flatMap((m) => m.content).find((c) => c.type === "toolUse");
      expect(use).toMatchObject({ input: { to: "alice", amount: 3 } });
    },
  );

  test("invalid edits are refused with a clear message and never run", async () => {
    const b = bank();
    const agent = newAgent(b, [gate()], transferTo("alice", 5));
    const r1 = await agent.invoke("go");
    const r2 = await agent.invoke([
      answer(r1.interrupts[0]!.id, { approved: true, editedArgs: { to: "alice", amount: -3 } }),
    ]);
    expect(r2.stopReason).toBe("endTurn");
    expect(b.transfers).toEqual([]);
    expect(JSON.stringify(agent.messages)).toMatch(/edited arguments for \\"transfer\\" are invalid/);
  });

  test("an edit that changes the subject is gated again, under its own interrupt", async () => {
    const b = bank();
    const agent = newAgent(b, [gate()], transferTo("alice", 5));
    const r1 = await agent.invoke("go");
    const r2 = await agent.invoke([
      answer(r1.interrupts[0]!.id, { approved: true, editedArgs: { to: "mallory", amount: 5 } }),
    ]);
    expect(r2.stopReason).toBe("interrupt");
    expect(b.transfers).toEqual([]);
    const second = r2.interrupts[0]!;
    expect(second.id).not.toBe(r1.interrupts[0]!.id);
    expect(second.id).toMatch(/^hook:beforeToolCall:call_1:kaboo_approval:edit:/);
    expect((second.reason as unknown as ApprovalRequest).subject).toEqual({
      key: "to:mallory",
      label: "transfers to mallory",
    });
    await agent.invoke([answer(second.id, { approved: true })]);
    expect(b.transfers).toEqual([{ to: "mallory", amount: 5 }]);
  });

  test("a denied re-gate does not run the edited call", async () => {
    const b = bank();
    const agent = newAgent(b, [gate()], transferTo("alice", 5));
    const r1 = await agent.invoke("go");
    const r2 = await agent.invoke([
      answer(r1.interrupts[0]!.id, { approved: true, editedArgs: { to: "mallory", amount: 5 } }),
    ]);
    await agent.invoke([answer(r2.interrupts[0]!.id, { approved: false })]);
    expect(b.transfers).toEqual([]);
  });
});

describe("exactly once", () => {
  test("a decision wider than once covers later calls of the same run, for the same subject only", async () => {
    const b = bank();
    const agent = newAgent(b, [gate()], transferTo("a", 1));
    const r1 = await agent.invoke("go", { invocationState: hostState({ grants: [], publishes: true }) });
    // After the approval (scope thread), the same run calls transfer to "a" again and to "b".
    agent.model = new ScriptedModel({
      script: [
        { text: "ok" },
        {
          toolCalls: [
            { id: "x1", name: "transfer", input: { to: "a", amount: 2 } },
            { id: "x2", name: "transfer", input: { to: "b", amount: 2 } },
          ],
        },
      ],
    });
    const state = hostState({ grants: [], publishes: true });
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true, scope: "thread" })], { invocationState: state });
    expect(b.transfers).toEqual([{ to: "a", amount: 1 }]);
    // Same run continues (no new invocationState): a new user turn in the same invocation state.
    const r2 = await agent.invoke("again", { invocationState: state });
    expect(b.transfers).toEqual([
      { to: "a", amount: 1 },
      { to: "a", amount: 2 },
    ]);
    expect(r2.stopReason).toBe("interrupt");
    expect(r2.interrupts).toHaveLength(1);
    expect((r2.interrupts[0]!.reason as unknown as ApprovalRequest).subject?.key).toBe("to:b");
  });

  test("an approval reused for a different input is refused", async () => {
    const b = bank();
    const agent = newAgent(b, [gate()], transferTo("alice", 5));
    const r1 = await agent.invoke("go");
    const saved = JSON.parse(JSON.stringify(agent.interruptState));
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(b.transfers).toHaveLength(1);
    // A replayed snapshot whose paused call was altered, answered with the same (spent) approval.
    const replay = InterruptState.fromJSON(saved);
    const ctx = replay.context as { toolUseMessage: { content: { input: { amount: number } }[] } };
    ctx.toolUseMessage.content[0]!.input.amount = 500;
    agent.interruptState = replay;
    agent.messages = agent.messages.slice(0, 1);
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(b.transfers).toEqual([{ to: "alice", amount: 5 }]);
    expect(JSON.stringify(agent.messages)).toMatch(/already used for a different call/);
  });
});

describe("property: approvals are never widened, skipped or doubled", () => {
  test("random asks, answers and grants never run an unapproved call, never twice, never under another subject's grant", async () => {
    const recipients = ["a", "b", "__proto__", "constructor"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            to: fc.constantFrom(...recipients),
            grantFor: fc.option(fc.constantFrom(...recipients), { nil: undefined }),
            grantTool: fc.constantFrom("transfer", "balance"),
            answer: fc.constantFrom("approve", "deny", "skip", "edit-same", "edit-other"),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (steps) => {
          for (const s of steps) {
            const b = bank();
            const agent = newAgent(b, [gate()], transferTo(s.to, 1));
            const grants =
              s.grantFor === undefined
                ? []
                : [{ tool: s.grantTool, scope: "always", subjectKey: `to:${s.grantFor}`, grantedAt: 1 }];
            const covered = s.grantTool === "transfer" && s.grantFor === s.to;
            const r1 = await agent.invoke("go", { invocationState: hostState({ grants, publishes: true }) });
            if (covered) {
              expect(r1.stopReason).toBe("endTurn");
              expect(b.transfers).toEqual([{ to: s.to, amount: 1 }]);
              continue;
            }
            expect(r1.stopReason).toBe("interrupt");
            expect(b.transfers).toEqual([]);
            const id = r1.interrupts[0]!.id;
            const response =
              s.answer === "approve"
                ? { approved: true }
                : s.answer === "deny"
                  ? { approved: false }
                  : s.answer === "skip"
                    ? { status: "cancelled" }
                    : s.answer === "edit-same"
                      ? { approved: true, editedArgs: { to: s.to, amount: 2 } }
                      : { approved: true, editedArgs: { to: `${s.to}x`, amount: 2 } };
            const r2 = await agent.invoke([answer(id, response)], {
              invocationState: hostState({ grants, publishes: true }),
            });
            if (s.answer === "approve") expect(b.transfers).toEqual([{ to: s.to, amount: 1 }]);
            else if (s.answer === "edit-same") expect(b.transfers).toEqual([{ to: s.to, amount: 2 }]);
            else expect(b.transfers).toEqual([]);
            if (s.answer === "edit-other") expect(r2.stopReason).toBe("interrupt");
            // Replaying the same answers never runs anything again.
            await agent.invoke([answer(id, response)]).catch(() => undefined);
            expect(b.transfers.length).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
