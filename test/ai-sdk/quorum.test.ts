import { describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import {
  ApprovalQuorumError,
  ApprovalSignatureError,
  approvalsReason,
  kabooToolApproval,
  signApprovalReason,
  type GateRule,
} from "../../src/ai-sdk/index.js";
import { UserError } from "../../src/errors.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import { answered, approvalRequests, bank, request, scriptedModel, pay, secret, toBob } from "./fixtures.js";

/** Alice's thread, asked about call-1 under a two-person rule. */
async function asked(rule: Partial<GateRule> = {}) {
  const ledger = new MemoryExecutionLedger();
  const grants = new MemoryGrantStore();
  const audit = new MemoryAuditLog();
  const { runs, tools } = bank();
  const model = scriptedModel([toBob]);
  const approval = {
    rules: [{ pattern: "transfer", remember: "always" as const, approvals: { required: 2 }, ...rule }],
    threadId: "t1",
    principal: "alice",
    grants,
    audit,
    secret,
  };
  const first = await request({ model, tools, messages: pay, ledger, approval });
  const [question] = approvalRequests(first.response.messages);
  const answer = (reason: string) =>
    request({
      model,
      tools,
      messages: answered(pay, first.response.messages, { approved: true, reason }),
      ledger,
      approval,
    });
  return { runs, question, answer, grants, audit };
}

const by = (principal: string, o: { toolCallId?: string } = {}) =>
  signApprovalReason({
    secret,
    scope: "once",
    threadId: "t1",
    toolCallId: o.toolCallId ?? "call-1",
    input: toBob.input,
    principal,
  });

describe("four eyes (a rule with approvals) through the AI SDK", () => {
  it("asks naming the quorum, runs once with two people's signed approvals, grants nothing", async () => {
    const t = await asked();
    expect(t.question?.reason).toBe('Allow a call to "transfer"? (needs approvals from 2 people)');
    const reason = approvalsReason([await by("ann"), await by("bob")]);
    await t.answer(reason);
    await t.answer(reason);
    expect(t.runs.transfer).toBe(1);
    expect(await t.grants.grantsFor("t1", { principal: "alice" })).toEqual([]);
    const entries = await t.audit.entries("t1");
    expect(entries.find((e) => e.kind === "request")).toMatchObject({ required: 2, principal: "alice" });
    expect(entries.filter((e) => e.kind === "decision")).toEqual([
      expect.objectContaining({ decision: "approved", scope: "once", note: "Approved by ann, bob (2 of 2)." }),
    ]);
    expect(await verifyAuditTrail(entries, { threadId: "t1" })).toMatchObject({ ok: true });
  });

  it("refuses too few, repeated or ineligible approvers; a full set still counts afterwards", async () => {
    const t = await asked({ approvals: { required: 2, forbidRequester: true, eligible: (p) => p !== "mallory" } });
    const cases: [string[], string[], RegExp][] = [
      [["ann"], ["ann"], /needs approvals from 2 people; 1 counted/],
      [["ann", "ann"], ["ann"], /ann has already approved/],
      [["ann", "alice"], ["ann"], /alice asked for this call/],
      [["ann", "mallory"], ["ann"], /mallory may not approve this call/],
    ];
    for (const [approvers, counted, message] of cases) {
      const reason = approvalsReason(await Promise.all(approvers.map((p) => by(p))));
      const error = await t.answer(reason).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApprovalQuorumError);
      expect(error).toMatchObject({ code: "APPROVAL_QUORUM_NOT_MET", required: 2, counted, message });
    }
    expect(t.runs.transfer).toBe(0);
    await t.answer(approvalsReason([await by("ann"), await by("bob")]));
    expect(t.runs.transfer).toBe(1);
  });

  it("refuses a forged approver, an approval for another call, and none at all", async () => {
    const t = await asked();
    const bob = JSON.parse(await by("bob")) as { sig: string };
    const forged = JSON.stringify({
      kaboo_approval: 1,
      scope: "once",
      approvals: [JSON.parse(await by("ann")), { by: "carol", sig: bob.sig }],
    });
    const otherCall = approvalsReason([await by("ann"), await by("bob", { toolCallId: "call-2" })]);
    for (const reason of [forged, otherCall])
      await expect(t.answer(reason)).rejects.toMatchObject({ code: "APPROVAL_SIGNATURE_INVALID", problem: "invalid" });
    const single = await by("ann");
    for (const reason of [approvalsReason([]), single, "yes"]) {
      const error = await t.answer(reason).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApprovalSignatureError);
      expect(error).toMatchObject({ problem: "missing" });
    }
    expect(t.runs.transfer).toBe(0);
  });

  it("needs a secret: approvers sign", () => {
    const ledger = new MemoryExecutionLedger();
    const rules = [{ pattern: "transfer", approvals: { required: 2 } }];
    expect(() => kabooToolApproval({ rules, ledger, threadId: "t1" })).toThrow(UserError);
    expect(() => kabooToolApproval({ rules, ledger, threadId: "t1" })).toThrow(/set a secret/);
  });
});
