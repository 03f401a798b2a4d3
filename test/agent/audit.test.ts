// The audit trail: hash-chained per thread, so an edited, dropped or reordered entry (and, given the
// last known head, a cut tail) is found; appends that race keep one chain; the gate and the runner
// record what was asked, decided and run.
import { describe, expect, test } from "vitest";
import {
  Agent,
  ChainedAuditLog,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  auditFromJsonLines,
  auditToJsonLines,
  executionKey,
  verifyAuditTrail,
  type AuditChainStorage,
  type AuditEntry,
  type AuditRecord,
  type InterruptResponse,
} from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { AUDIT_CONTRACT_CHECKS, runAuditContract } from "./audit-contract.js";
import { auditKinds, expectAuditMatchesRuns } from "./audit-helpers.js";
import { transferTool } from "./helpers.js";

const revocation = (n: number): AuditRecord => ({
  kind: "revocation",
  grantIds: [`g${n}`],
  principal: "ann",
  by: null,
});

async function fiveEntries() {
  const audit = new MemoryAuditLog({ now: () => 1_000 });
  for (let i = 0; i < 5; i++) await audit.append("t1", revocation(i));
  return audit;
}

describe("verifyAuditTrail", () => {
  test("an untouched trail verifies, and its head is the last entry's hash", async () => {
    const audit = await fiveEntries();
    const entries = await audit.entries("t1");
    expect(entries.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(entries[0]?.prev).toBeNull();
    const check = await verifyAuditTrail(entries);
    expect(check).toMatchObject({ ok: true, count: 5 });
    expect(await verifyAuditTrail(entries, { head: check.ok ? (check.head ?? "") : "" })).toMatchObject({ ok: true });
    expect(await verifyAuditTrail([])).toEqual({ ok: true, count: 0, head: null });
  });

  test("an edited entry is found at its place", async () => {
    const audit = await fiveEntries();
    const rows = audit.storedRows("t1");
    rows[2] = (rows[2] ?? "").replace('"g2"', '"g9"');
    expect(await verifyAuditTrail(await audit.entries("t1"))).toMatchObject({ ok: false, problem: "edited", index: 2 });
  });

  test("a field added to an entry counts as an edit", async () => {
    const audit = await fiveEntries();
    const entries = await audit.entries("t1");
    (entries[1] as unknown as Record<string, unknown>).extra = true;
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: false, problem: "edited", index: 1 });
  });

  test("a dropped entry is found", async () => {
    const audit = await fiveEntries();
    audit.storedRows("t1").splice(3, 1);
    expect(await verifyAuditTrail(await audit.entries("t1"))).toMatchObject({
      ok: false,
      problem: "dropped",
      index: 3,
    });
  });

  test("reordered entries are found, renumbered or not", async () => {
    const audit = await fiveEntries();
    const entries = await audit.entries("t1");
    const swapped = [entries[0], entries[2], entries[1], entries[3], entries[4]];
    expect(await verifyAuditTrail(swapped)).toMatchObject({ ok: false, problem: "reordered", index: 1 });
    const renumbered = swapped.map((e, seq) => ({ ...e, seq }));
    expect(await verifyAuditTrail(renumbered)).toMatchObject({ ok: false, problem: "edited" });
  });

  test("a cut tail, or an edited last entry, is found given the last known head", async () => {
    const audit = await fiveEntries();
    const entries = await audit.entries("t1");
    const check = await verifyAuditTrail(entries);
    const head = check.ok ? (check.head ?? "") : "";
    expect(await verifyAuditTrail(entries.slice(0, 4))).toMatchObject({ ok: true });
    expect(await verifyAuditTrail(entries.slice(0, 4), { head })).toMatchObject({ ok: false, problem: "truncated" });
    const edited = [...entries.slice(0, 4), { ...entries[4], by: "mallory" }];
    expect(await verifyAuditTrail(edited, { head })).toMatchObject({ ok: false, problem: "truncated" });
    // A trail that grew since the head was taken still verifies against it.
    await audit.append("t1", revocation(5));
    expect(await verifyAuditTrail(await audit.entries("t1"), { head })).toMatchObject({ ok: true, count: 6 });
  });

  test("an entry of another thread, or one that is not an entry, is refused", async () => {
    const audit = await fiveEntries();
    await audit.append("t2", revocation(0));
    const mixed = [...(await audit.entries("t1")), ...(await audit.entries("t2"))];
    expect(await verifyAuditTrail(mixed)).toMatchObject({ ok: false, problem: "other_thread", index: 5 });
    expect(await verifyAuditTrail([{ v: 1, seq: 0 }])).toMatchObject({ ok: false, problem: "malformed", index: 0 });
    expect(await verifyAuditTrail(["not json"])).toMatchObject({ ok: false, problem: "malformed" });
  });
});

describe("JSON Lines export", () => {
  test("round-trips and verifies; an edited line is found", async () => {
    const audit = await fiveEntries();
    const text = auditToJsonLines(await audit.entries("t1"));
    expect(text.trim().split("\n")).toHaveLength(5);
    expect(await verifyAuditTrail(auditFromJsonLines(text))).toMatchObject({ ok: true, count: 5 });
    const lines = text.split("\n");
    lines[1] = (lines[1] ?? "").replace('"ann"', '"eve"');
    expect(await verifyAuditTrail(auditFromJsonLines(lines.join("\n")))).toMatchObject({
      ok: false,
      problem: "edited",
      index: 1,
    });
    lines[1] = "{not json";
    expect(await verifyAuditTrail(auditFromJsonLines(lines.join("\n")))).toMatchObject({
      ok: false,
      problem: "malformed",
      index: 1,
    });
  });
});

describe("appends that race", () => {
  test("two logs over one storage (two isolates) appending at once keep one unbroken chain", async () => {
    const rows: AuditEntry[] = [];
    let inserts = 0;
    const storage: AuditChainStorage = {
      last: async () => structuredClone(rows[rows.length - 1]),
      insert: async (entry) => {
        inserts++;
        await new Promise((r) => setTimeout(r, Math.random() * 2));
        if (rows.length !== entry.seq) return false;
        rows.push(structuredClone(entry));
        return true;
      },
      list: async () => structuredClone(rows),
    };
    const a = new ChainedAuditLog(storage);
    const b = new ChainedAuditLog(storage);
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).append("t", revocation(i))));
    const check = await verifyAuditTrail(rows);
    expect(check).toMatchObject({ ok: true, count: 20 });
    expect(new Set(rows.map((r) => (r.kind === "revocation" ? r.grantIds[0] : "")))).toHaveLength(20);
    expect(inserts).toBeGreaterThan(20);
  });

  test("a batch's concurrent entries in one log never lose each other", async () => {
    const audit = new MemoryAuditLog();
    await Promise.all(Array.from({ length: 30 }, (_, i) => audit.append("t", revocation(i))));
    expect(await verifyAuditTrail(await audit.entries("t"))).toMatchObject({ ok: true, count: 30 });
  });
});

describe("what the gate and the runner record", () => {
  const script = [{ toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "t1" }] }, { text: "done" }];
  const setup = () => {
    const { tool, sent } = transferTool();
    const keys: string[] = [];
    const audit = new MemoryAuditLog();
    const agent = new Agent({
      model: new ScriptedModel({ script }),
      tools: [tool],
      hooks: [new InterruptHook([{ pattern: "transfer", subject: (_, i) => `to:${(i as { to: string }).to}` }])],
      audit,
    });
    return { agent, audit, sent, keys };
  };
  const answer = (id: string, response: unknown): InterruptResponse[] => [
    {
      interruptResponse: { interruptId: id, response: response as InterruptResponse["interruptResponse"]["response"] },
    },
  ];
  const state = () => ({ invocationState: { threadId: "th", kabooPrincipal: "ann" } });

  test("an approved call: the request, the decision with its principal, and the execution with its key", async () => {
    const { agent, audit, sent } = setup();
    const paused = await agent.invoke("pay bob", state());
    const id = paused.interrupts[0]?.id ?? "";
    await agent.invoke(answer(id, { approved: true }), state());
    expect(sent).toHaveLength(1);
    const key = await executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } });
    const entries = await expectAuditMatchesRuns(audit, "th", [key]);
    expect(auditKinds(entries)).toEqual(["request", "decision:approved", "execution:claimed"]);
    expect(entries[0]).toMatchObject({ tool: "transfer", interruptId: id, rule: "transfer", principal: "ann" });
    expect(entries[0]).toMatchObject({
      subject: { key: "to:bob" },
      argsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(entries[1]).toMatchObject({ principal: "ann", scope: "once", editsDigest: null });
    expect(entries[2]).toMatchObject({
      idempotencyKey: key,
      status: "success",
      resultDigest: expect.stringMatching(/^sha256:/),
    });
  });

  test("a denied call: no execution; an edit is recorded as its digest", async () => {
    const denied = setup();
    const p1 = await denied.agent.invoke("pay bob", state());
    await denied.agent.invoke(answer(p1.interrupts[0]?.id ?? "", { approved: false }), state());
    expect(auditKinds(await denied.audit.entries("th"))).toEqual(["request", "decision:denied"]);
    await expectAuditMatchesRuns(denied.audit, "th", []);

    const edited = setup();
    const p2 = await edited.agent.invoke("pay bob", state());
    await edited.agent.invoke(
      answer(p2.interrupts[0]?.id ?? "", { approved: true, editedArgs: { to: "bob" } }),
      state(),
    );
    const entries = await edited.audit.entries("th");
    expect(entries[1]).toMatchObject({
      kind: "decision",
      editsDigest: entries[0]?.kind === "request" ? entries[0].argsDigest : "",
    });
  });

  test("a call the ledger already holds as done is recorded as a replay, not a run", async () => {
    const ledger = new MemoryExecutionLedger();
    const audit = new MemoryAuditLog();
    const { tool, sent } = transferTool();
    const make = () => new Agent({ model: new ScriptedModel({ script }), tools: [tool], ledger, audit });
    await make().invoke("pay", { invocationState: { threadId: "th" } });
    await make().invoke("pay", { invocationState: { threadId: "th" } });
    expect(sent).toHaveLength(1);
    const key = await executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } });
    expect(auditKinds(await expectAuditMatchesRuns(audit, "th", [key]))).toEqual([
      "execution:claimed",
      "execution:done",
    ]);
  });

  test("a run's own log (the host's) wins over the agent's", async () => {
    const { agent, audit } = setup();
    const host = new MemoryAuditLog();
    await agent.invoke("pay bob", { invocationState: { threadId: "th", kabooAuditLog: host } });
    expect(await audit.entries("th")).toEqual([]);
    expect(auditKinds(await host.entries("th"))).toEqual(["request"]);
  });
});

describe("the AuditLog contract", () => {
  test("MemoryAuditLog (two instances over one memory: the shared storage is the log's)", async () => {
    const log = new MemoryAuditLog();
    const results = await runAuditContract(() => log);
    expect(results.map((r) => r.name)).toEqual(AUDIT_CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });
});
