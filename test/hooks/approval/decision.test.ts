/**
 * The decision step both approval hooks share (src/hooks/approval/decision.ts), and both hooks held
 * to it: an unreadable answer is a recorded denial, a late answer is expired, the scope is clamped.
 */
import { describe, expect, test } from "vitest";
import { Agent, type JsonValue } from "../../../src/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { ToolApprovalHook, type ToolDecision } from "../../../src/hooks/tool-approval-hook.js";
import { approvalDecisions, type ApprovalDecision } from "../../../src/hooks/approval/run.js";
import { decideAnswer, isPastDeadline, offeredScopes, refusalNote } from "../../../src/hooks/approval/decision.js";
import { answer, bank, callsThenAnswers, newAgent, silentLogger } from "../approval-fixtures.js";
import { hostState } from "../host-state.js";
import { newBank, transferTool } from "../../fixtures/bank.js";

const NOW = 1_000_000;
const base = { interruptId: "i", offered: ["once", "thread"] as const, now: NOW };

describe("decideAnswer", () => {
  test.each([[{ approved: "yes" }], [42], ["approve"], [{ scope: "forever", approved: true }]])(
    "an unreadable answer (%j) is a denial with its reason, never an approval",
    (response) => {
      const record = decideAnswer({ ...base, response, asked: {} });
      expect(record).toMatchObject({ decision: "denied", scope: "once", principal: null });
      expect(record.unreadable).toEqual(expect.any(String));
      expect(refusalNote(record, "transfer")).toMatch(/denied the call to "transfer".*could not be read/);
    },
  );

  test("an unreadable answer stays a denial past the deadline; a readable one is expired", () => {
    const asked = { expiresAt: new Date(NOW - 1).toISOString() };
    expect(decideAnswer({ ...base, response: 42, asked }).decision).toBe("denied");
    expect(decideAnswer({ ...base, response: { approved: true }, asked }).decision).toBe("expired");
    expect(decideAnswer({ ...base, response: { approved: false }, asked }).decision).toBe("expired");
  });

  test("the deadline: past it expired; none is fine unless one is required", () => {
    expect(isPastDeadline({ request: { expiresAt: new Date(NOW).toISOString() }, now: NOW })).toBe(false);
    expect(isPastDeadline({ request: { expiresAt: new Date(NOW).toISOString() }, now: NOW + 1 })).toBe(true);
    expect(isPastDeadline({ request: {}, now: NOW })).toBe(false);
    expect(isPastDeadline({ request: { expiresAt: "soon" }, now: NOW, deadlineRequired: true })).toBe(true);
    expect(isPastDeadline({ request: null, now: NOW, deadlineRequired: true })).toBe(true);
  });

  test("an approval takes the chosen scope clamped to what is offered, with the edits and who answered", () => {
    const record = decideAnswer({
      ...base,
      response: { approved: true, scope: "always", editedArgs: { to: "bob" } },
      asked: {},
      principal: "alice",
    });
    expect(record).toEqual({
      interruptId: "i",
      decision: "approved",
      scope: "thread",
      editedArgs: { to: "bob" },
      principal: "alice",
    });
    expect(decideAnswer({ ...base, response: { approved: true, status: "cancelled" }, asked: {} }).decision).toBe(
      "skipped",
    );
  });

  test("scopes offered: once unless the host remembers; never wider than was shown", () => {
    const remembering = hostState({ grants: [], publishes: true });
    expect(offeredScopes({ invocationState: hostState(), remember: "always" })).toEqual(["once"]);
    expect(offeredScopes({ invocationState: remembering, remember: "always" })).toEqual(["once", "thread", "always"]);
    expect(offeredScopes({ invocationState: remembering, remember: "always", unknownSubject: true })).toEqual(["once"]);
    expect(
      offeredScopes({ invocationState: remembering, remember: "always", asked: { scopes: ["once", "thread"] } }),
    ).toEqual(["once", "thread"]);
    expect(offeredScopes({ invocationState: remembering, remember: "always", asked: {} })).toEqual(["once"]);
  });
});

/** One gated transfer, paused and answered with `response`, through either hook. */
async function answered(
  kind: "gate" | "tool",
  response: JsonValue,
  o: { ttlAnswerLate?: boolean } = {},
): Promise<{ ran: number; decisions: readonly ApprovalDecision[]; told: ToolDecision[]; note: string }> {
  let now = NOW;
  const told: ToolDecision[] = [];
  const log = silentLogger();
  let agent: Agent;
  let ran = () => 0;
  if (kind === "gate") {
    const b = bank();
    const hook = new InterruptHook(["transfer"], { logger: log, now: () => now, ttlSeconds: 60 });
    agent = newAgent(b, [hook], callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]));
    ran = () => b.transfers.length;
  } else {
    const b = newBank();
    const transfer = transferTool(b, {
      instead: (_input, ctx) => {
        const asked = [...ctx.agent.interruptState.interrupts.values()].some((i) => i.response !== undefined);
        return asked
          ? undefined
          : { kaboo_approval: { requestId: "r1", expiresAt: new Date(now + 60_000).toISOString() } };
      },
      result: () => "sent",
    });
    const hook = new ToolApprovalHook({ logger: log, now: () => now, onDecision: (d) => void told.push(d) });
    agent = new Agent({
      name: "bank",
      model: callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]),
      tools: [transfer],
      hooks: [hook],
    });
    ran = () => b.transfers.length;
  }
  const r1 = await agent.invoke("go", { invocationState: hostState() });
  if (o.ttlAnswerLate) now += 61_000;
  const state = hostState();
  await agent.invoke([answer(r1.interrupts[0]!.id, response)], { invocationState: state });
  const result = agent.messages.flatMap((m) => m.content).find((c) => c.type === "toolResult");
  return { ran: ran(), decisions: approvalDecisions(state), told, note: JSON.stringify(result) };
}

describe.each(["gate", "tool"] as const)("both hooks decide alike (%s)", (kind) => {
  test("an unreadable answer: the call does not run, a denial is recorded, the model reads why", async () => {
    const r = await answered(kind, { approved: "yes" });
    expect(r.ran).toBe(0);
    expect(r.decisions).toEqual([expect.objectContaining({ decision: "denied", scope: "once", tool: "transfer" })]);
    expect(r.note).toMatch(/denied the call to \\"transfer\\".*could not be read/);
    if (kind === "tool") expect(r.told).toEqual([expect.objectContaining({ decision: "denied", requestId: "r1" })]);
  });

  test("an approval after the deadline: expired, recorded, not run", async () => {
    const r = await answered(kind, { approved: true }, { ttlAnswerLate: true });
    expect(r.ran).toBe(0);
    expect(r.decisions).toEqual([expect.objectContaining({ decision: "expired", scope: "once" })]);
    expect(r.note).toMatch(/expired/);
  });

  test("an approval in time runs the call once and is recorded", async () => {
    const r = await answered(kind, { approved: true });
    expect(r.ran).toBe(1);
    expect(r.decisions).toEqual([expect.objectContaining({ decision: "approved", scope: "once" })]);
  });
});
