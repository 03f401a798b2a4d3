// Watchers of a run's audit records (what the tracing hook reads): they see every record the gates and
// the ledger make, with or without a log, only for the run whose state they watch, and cannot fail it.
import { describe, expect, test } from "vitest";
import { Agent, AfterModelCallEvent, MemoryAuditLog, ScriptedModel, type AuditRecord } from "../../../src/index.js";
import { watchRunAudit } from "../../../src/agent/audit/audit-record.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { transferTool } from "../helpers.js";

const twoTurns = (runs = 1) =>
  new ScriptedModel({
    ids: "sequential",
    script: Array.from({ length: runs }, () => [
      { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
      { text: "done" },
    ]).flat(),
  });

describe("watchRunAudit", () => {
  test("without an audit log the watcher still reads the request, the decision and the execution", async () => {
    const t = transferTool();
    const agent = new Agent({ model: twoTurns(), tools: [t.tool], hooks: [new InterruptHook(["transfer"])] });
    const seen: [AuditRecord["kind"], unknown][] = [];
    const records: AuditRecord[] = [];
    const state = { threadId: "t1" };
    watchRunAudit(state, (record, entry, who) => {
      expect(who).toBe(agent);
      seen.push([record.kind, entry]);
      records.push(record);
    });
    const r1 = await agent.invoke("pay", { invocationState: state });
    expect(seen).toEqual([["request", undefined]]);
    const id = r1.interrupts[0]?.id as string;
    await agent.invoke([{ interruptResponse: { interruptId: id, response: { approved: true } } }], {
      invocationState: state,
    });
    expect(seen.map(([kind]) => kind)).toEqual(["request", "decision", "execution"]);
    // Nothing stores it: the record of the call that ran comes without a key or digest (none is computed).
    expect(records.at(-1)).toMatchObject({
      kind: "execution",
      claim: "claimed",
      status: "success",
      idempotencyKey: "",
      resultDigest: null,
    });
    expect(t.sent).toEqual([{ to: "bob" }]);
  });

  test("with a log the watcher gets the stored entry; a watcher that throws fails nothing; unwatched, nothing", async () => {
    const t = transferTool();
    const audit = new MemoryAuditLog();
    const agent = new Agent({ model: twoTurns(2), tools: [t.tool], audit });
    const seqs: number[] = [];
    const state = { threadId: "t1" };
    const stop = watchRunAudit(state, (_record, entry) => {
      seqs.push(entry?.seq ?? -1);
      throw new Error("a broken watcher");
    });
    await agent.invoke("pay", { invocationState: state });
    expect(seqs).toEqual([0]);
    expect((await audit.entries("t1")).map((e) => e.kind)).toEqual(["execution"]);
    stop();
    await agent.invoke("pay again", { invocationState: state });
    expect(seqs).toEqual([0]);
  });
});

describe("AfterModelCallEvent.usage", () => {
  test("each attempt's own tokens, undefined for a failed call that reported none", async () => {
    const model = new ScriptedModel({
      script: [
        { error: new Error("overloaded") },
        { text: "hi", usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 } },
      ],
    });
    const agent = new Agent({ model, maxModelRetries: 1 });
    const usages: unknown[] = [];
    agent.hooks.addCallback(AfterModelCallEvent, (e) => {
      usages.push(e.usage);
      if (e.error) e.retry = true;
    });
    await agent.invoke("go");
    expect(usages).toEqual([undefined, { inputTokens: 7, outputTokens: 2, totalTokens: 9 }]);
  });
});
