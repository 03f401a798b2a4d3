/**
 * Edited arguments through the real AI SDK (`generateText`, `streamText`, its mock language model):
 * the person's edit travels in the approval's reason (approvalReason / signApprovalReason
 * `editedArgs`); kabooToolApproval checks it against the tool's schema and re-gates a changed subject;
 * withLedger runs the edit once, under the approved call's key, and the model reads that result.
 */
import { stepCountIs, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { jsonDigest } from "../../src/agent/audit/digest.js";
import { executionKey } from "../../src/agent/ledger/ledger.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import {
  ApprovalEditError,
  ApprovalSignatureError,
  approvalReason,
  kabooToolApproval,
  signApprovalReason,
  withLedger,
  type KabooToolApprovalOptions,
} from "../../src/ai-sdk/index.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import {
  answered,
  approvalRequests,
  bank,
  lastToolResults,
  request,
  scriptedModel,
  pay,
  secret,
  toBob,
} from "./fixtures.js";

const bySubject = {
  pattern: "transfer",
  remember: "thread" as const,
  subject: (_: string, input: unknown) => {
    const to = (input as { to: string }).to;
    return { key: `to:${to}`, label: `transfers to ${to}` };
  },
};
const modelKey = executionKey({ threadId: "t1", toolUseId: "call-1", input: toBob.input });

/** A thread where ann was asked about call-1 (transfer 5 cents to bob); `answer` sends her reply. */
async function asked(extra: Partial<KabooToolApprovalOptions> = {}) {
  const ledger = new MemoryExecutionLedger();
  const audit = new MemoryAuditLog();
  const grants = new MemoryGrantStore();
  const { runs, tools } = bank();
  const model = scriptedModel([toBob]);
  const approval = { rules: [bySubject], threadId: "t1", principal: "ann", grants, audit, ...extra };
  const first = await request({ model, tools, messages: pay, ledger, approval });
  expect(approvalRequests(first.response.messages)).toHaveLength(1);
  const messagesFor = (reason: string) => answered(pay, first.response.messages, { approved: true, reason });
  const answer = (reason: string) => request({ model, tools, messages: messagesFor(reason), ledger, approval });
  const decisions = async () => (await audit.entries("t1")).filter((e) => e.kind === "decision");
  return { runs, tools, model, ledger, audit, grants, answer, messagesFor, decisions };
}

const editError = (problem: string) => expect.objectContaining({ name: "ApprovalEditError", problem });

describe("edited arguments (kabooToolApproval + withLedger)", () => {
  it("runs an approved edit once, under the model's call's key; the model reads its result; a replay runs nothing", async () => {
    const t = await asked();
    const reason = approvalReason({ scope: "once", editedArgs: { to: "bob", cents: 3 } });
    const second = await t.answer(reason);
    expect(t.runs.transfer).toBe(1);
    const result = { type: "json", value: { sent: 3, to: "bob", key: modelKey } };
    expect(lastToolResults(t.model)).toEqual([{ toolCallId: "call-1", output: result }]);
    expect(second.text).toBe("done");
    // The same approval replayed, and sent twice at once: the recorded result, nothing runs again.
    await t.answer(reason);
    await Promise.all([t.answer(reason), t.answer(reason)]);
    expect(t.runs.transfer).toBe(1);
    expect(lastToolResults(t.model)).toEqual([{ toolCallId: "call-1", output: result }]);
    // The decision entry digests the edit, as InterruptHook's does.
    const [decision] = await t.decisions();
    expect(decision).toMatchObject({ decision: "approved", editsDigest: jsonDigest({ to: "bob", cents: 3 }) });
    expect(await verifyAuditTrail(await t.audit.entries("t1"), { threadId: "t1" })).toMatchObject({ ok: true });
  });

  it("refuses an edit the tool's schema rejects (or that is not an object) with ApprovalEditError; nothing runs", async () => {
    const t = await asked();
    const wrongType = JSON.stringify({ kaboo_approval: 1, scope: "once", editedArgs: { to: "bob", cents: "3" } });
    await expect(t.answer(wrongType)).rejects.toEqual(editError("invalid"));
    const notObject = JSON.stringify({ kaboo_approval: 1, scope: "once", editedArgs: [3] });
    const error = await t.answer(notObject).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalEditError);
    expect(error).toEqual(editError("invalid"));
    expect(t.runs.transfer).toBe(0);
    const decisions = await t.decisions();
    expect(decisions.map((d) => [d.decision, d.note])).toEqual([
      ["refused", "the edited arguments are invalid"],
      ["refused", "the edited arguments are invalid"],
    ]);
    expect(decisions[0]).toMatchObject({ editsDigest: jsonDigest({ to: "bob", cents: "3" }) });
    // Nothing was recorded for the approval: the person's valid answer still counts.
    await t.answer(approvalReason({ scope: "once", editedArgs: { to: "bob", cents: 4 } }));
    expect(t.runs.transfer).toBe(1);
  });

  it("denies an edit that changes the call's subject (to ask again): nothing runs, nothing is granted", async () => {
    const t = await asked();
    const reason = approvalReason({ scope: "thread", editedArgs: { to: "mallory", cents: 5 } });
    await t.answer(reason);
    await t.answer(reason);
    expect(t.runs.transfer).toBe(0);
    const [denied] = lastToolResults(t.model);
    expect(denied?.output).toMatchObject({ type: "execution-denied" });
    expect(JSON.stringify(denied?.output)).toMatch(/now transfers to mallory.*Make the call again/);
    expect(await t.grants.grantsFor("t1", { principal: "ann" })).toEqual([]);
    const decisions = await t.decisions();
    expect(decisions.map((d) => [d.decision, d.note])).toEqual([
      ["refused", "the edit changes the subject: ask again"],
    ]);
    expect(decisions[0]).toMatchObject({ editsDigest: jsonDigest({ to: "mallory", cents: 5 }) });
  });

  it("with a secret: runs a signed edit; refuses an altered one and an edit added to a signed approval", async () => {
    const t = await asked({ secret });
    const sign = (editedArgs?: Record<string, unknown>) =>
      signApprovalReason({
        secret,
        scope: "once",
        threadId: "t1",
        toolCallId: "call-1",
        input: toBob.input,
        principal: "ann",
        editedArgs,
      });
    const signed = JSON.parse(await sign({ to: "bob", cents: 3 })) as Record<string, unknown>;
    const altered = JSON.stringify({ ...signed, editedArgs: { to: "bob", cents: 300 } });
    await expect(t.answer(altered)).rejects.toBeInstanceOf(ApprovalSignatureError);
    const added = JSON.stringify({ ...(JSON.parse(await sign()) as object), editedArgs: { to: "bob", cents: 1 } });
    await expect(t.answer(added)).rejects.toBeInstanceOf(ApprovalSignatureError);
    const dropped = JSON.stringify({ ...signed, editedArgs: undefined });
    await expect(t.answer(dropped)).rejects.toBeInstanceOf(ApprovalSignatureError);
    expect(t.runs.transfer).toBe(0);
    await t.answer(JSON.stringify(signed));
    expect(t.runs.transfer).toBe(1);
    expect(lastToolResults(t.model)[0]?.output).toMatchObject({ value: { sent: 3, to: "bob" } });
  });

  it("does not run the model's arguments when withLedger's ledger holds no decision for the edit", async () => {
    const t = await asked();
    const reason = approvalReason({ scope: "once", editedArgs: { to: "bob", cents: 3 } });
    const tools = withLedger(t.tools, { ledger: new MemoryExecutionLedger(), threadId: "t1" });
    const { generateText } = await import("ai");
    await generateText({
      model: t.model,
      messages: t.messagesFor(reason),
      tools,
      toolApproval: kabooToolApproval({ rules: [bySubject], ledger: t.ledger, threadId: "t1", principal: "ann" }),
      stopWhen: stepCountIs(5),
    });
    expect(t.runs.transfer).toBe(0);
    expect(JSON.stringify(lastToolResults(t.model))).toMatch(/error.*edited arguments.*same ledger/);
  });

  it("runs the edit under streamText", async () => {
    const t = await asked();
    const reason = approvalReason({ scope: "once", editedArgs: { to: "bob", cents: 2 } });
    const result = streamText({
      model: t.model,
      messages: t.messagesFor(reason),
      tools: withLedger(t.tools, { ledger: t.ledger, threadId: "t1" }),
      toolApproval: kabooToolApproval({ rules: [bySubject], ledger: t.ledger, threadId: "t1", principal: "ann" }),
      stopWhen: stepCountIs(5),
    });
    const outputs: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === "tool-result") outputs.push(part.output);
    expect(outputs).toEqual([{ sent: 2, to: "bob", key: modelKey }]);
    expect(t.runs.transfer).toBe(1);
  });
});
