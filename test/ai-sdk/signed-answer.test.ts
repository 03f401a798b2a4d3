/**
 * Signed approvals through the real AI SDK: with a `secret`, kabooToolApproval counts an approval only
 * when its reason was signed (signApprovalReason) for the request's principal, the call and the scope.
 * Attacks: an altered scope, a signed answer moved to another call or thread, one replayed by another
 * principal, an unsigned one: refused with ApprovalSignatureError, nothing runs, nothing is granted,
 * and the person's own answer still counts afterwards. Under `streamText` the refusal is the stream's
 * `error` part.
 */
import { stepCountIs, streamText, type ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import {
  ApprovalSignatureError,
  approvalReason,
  kabooToolApproval,
  signApprovalReason,
  withLedger,
  type ApprovalScope,
} from "../../src/ai-sdk/index.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import { answered, approvalRequests, bank, request, scriptedModel, pay, secret, toBob } from "./fixtures.js";

/** A thread where alice was asked about call-1 (transfer 5 to bob), with a gate that has `secret`. */
async function asked(threadId = "t1") {
  const ledger = new MemoryExecutionLedger();
  const grants = new MemoryGrantStore();
  const audit = new MemoryAuditLog();
  const { runs, tools } = bank();
  const model = scriptedModel([toBob]);
  const approval = (principal: string) => ({
    rules: [{ pattern: "transfer", remember: "always" as const }],
    threadId,
    principal,
    grants,
    audit,
    secret,
  });
  const first = await request({ model, tools, messages: pay, ledger, approval: approval("alice") });
  expect(approvalRequests(first.response.messages)).toHaveLength(1);
  /** Sends the answer with `reason` as `principal`. */
  const answer = (reason: string, principal = "alice") =>
    request({
      model,
      tools,
      messages: answered(pay, first.response.messages, { approved: true, reason }),
      ledger,
      approval: approval(principal),
    });
  const granted = async (principal: string) => (await grants.grantsFor(threadId, { principal })).map((g) => g.scope);
  return { runs, answer, granted, audit };
}

const sign = (scope: ApprovalScope, o: { principal?: string; threadId?: string; toolCallId?: string } = {}) =>
  signApprovalReason({
    secret,
    scope,
    threadId: o.threadId ?? "t1",
    toolCallId: o.toolCallId ?? "call-1",
    input: toBob.input,
    principal: o.principal ?? "alice",
  });

const refused = (problem: "missing" | "invalid") =>
  expect.objectContaining({ name: "ApprovalSignatureError", code: "APPROVAL_SIGNATURE_INVALID", problem });

describe("signed approvals (kabooToolApproval with a secret)", () => {
  it("runs a signed approval once and grants the signed scope to the signer only", async () => {
    const t = await asked();
    const reason = await sign("thread", { principal: "alice" });
    await t.answer(reason);
    await t.answer(reason);
    expect(t.runs.transfer).toBe(1);
    expect(await t.granted("alice")).toEqual(["thread"]);
    expect(await t.granted("mallory")).toEqual([]);
  });

  it("refuses an altered scope; the person's own answer still counts afterwards", async () => {
    const t = await asked();
    const once = JSON.parse(await sign("once")) as Record<string, unknown>;
    const widened = JSON.stringify({ ...once, scope: "always" });
    const error = await t.answer(widened).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalSignatureError);
    expect(error).toEqual(refused("invalid"));
    expect(t.runs.transfer).toBe(0);
    expect(await t.granted("alice")).toEqual([]);
    await t.answer(await sign("once"));
    expect(t.runs.transfer).toBe(1);
    expect(await t.granted("alice")).toEqual([]);
  });

  it("refuses a signed answer for another call, other arguments or another thread", async () => {
    const t = await asked();
    const other = [
      await sign("always", { toolCallId: "call-2" }),
      await sign("always", { threadId: "t2" }),
      await signApprovalReason({
        secret,
        scope: "always",
        threadId: "t1",
        toolCallId: "call-1",
        input: { to: "eve", cents: 5 },
        principal: "alice",
      }),
      await signApprovalReason({
        secret: "another secret",
        scope: "always",
        threadId: "t1",
        toolCallId: "call-1",
        input: toBob.input,
        principal: "alice",
      }),
    ];
    for (const reason of other) await expect(t.answer(reason)).rejects.toEqual(refused("invalid"));
    expect(t.runs.transfer).toBe(0);
    expect(await t.granted("alice")).toEqual([]);
  });

  it("refuses alice's answer replayed by mallory, before and after it ran", async () => {
    const t = await asked();
    const reason = await sign("always");
    await expect(t.answer(reason, "mallory")).rejects.toEqual(refused("invalid"));
    expect(t.runs.transfer).toBe(0);
    await t.answer(reason, "alice");
    expect(t.runs.transfer).toBe(1);
    // The decision alice's answer made is kept; mallory's replay does not reach it.
    await expect(t.answer(reason, "mallory")).rejects.toEqual(refused("invalid"));
    expect(t.runs.transfer).toBe(1);
    expect(await t.granted("mallory")).toEqual([]);
    expect(await t.granted("alice")).toEqual(["always"]);
  });

  it("refuses an unsigned approval (approvalReason, free text, none) and records each refusal in the chain", async () => {
    const t = await asked();
    for (const reason of [approvalReason({ scope: "always" }), "yes please", ""]) {
      await expect(t.answer(reason)).rejects.toEqual(refused("missing"));
    }
    expect(t.runs.transfer).toBe(0);
    expect(await t.granted("alice")).toEqual([]);
    const entries = await t.audit.entries("t1");
    expect(entries.filter((e) => e.kind === "decision")).toEqual(
      Array(3).fill(expect.objectContaining({ decision: "refused", note: "the approval is not signed", scope: null })),
    );
    expect(await verifyAuditTrail(entries, { threadId: "t1" })).toMatchObject({ ok: true });
  });
});

describe("signed approvals under streamText", () => {
  it("streams the refusal as an error part; nothing runs, nothing is granted", async () => {
    const { runs, tools } = bank();
    const model = scriptedModel([toBob]);
    const ledger = new MemoryExecutionLedger();
    const grants = new MemoryGrantStore();
    const approval = kabooToolApproval({
      rules: ["transfer"],
      grants,
      ledger,
      threadId: "t1",
      principal: "alice",
      secret,
      remember: "always",
    });
    const run = (messages: ModelMessage[]) =>
      streamText({
        model,
        messages,
        tools: withLedger(tools, { ledger, threadId: "t1" }),
        toolApproval: approval,
        stopWhen: stepCountIs(3),
        onError: () => {},
      });
    const first = (await run(pay).response).messages;
    const widened = JSON.stringify({ ...JSON.parse(await sign("once")), scope: "always" });
    const refused = run(answered(pay, first, { approved: true, reason: widened }));
    const errors: unknown[] = [];
    for await (const part of refused.fullStream) if (part.type === "error") errors.push(part.error);
    expect(errors).toEqual([expect.any(ApprovalSignatureError)]);
    await expect(refused.response).rejects.toThrow(/No output generated/);
    expect(runs.transfer).toBe(0);
    expect(await grants.grantsFor("t1", { principal: "alice" })).toEqual([]);
    const signed = run(answered(pay, first, { approved: true, reason: await sign("always") }));
    await signed.response;
    expect(runs.transfer).toBe(1);
    expect((await grants.grantsFor("t1", { principal: "alice" })).map((g) => g.scope)).toEqual(["always"]);
  });
});
