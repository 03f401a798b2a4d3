/**
 * The audit trail's guarantee attacked at the edge: a question is not shown, and an answer not
 * acted on, unless its entry was written. A trail that fails on one kind of entry, with a thread
 * store and stateless; and the grant that skips a question must be recorded before the call runs.
 */
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, type AuditLog, type AuditRecord } from "../../../src/index.js";
import { MemoryGrantStore } from "../../../src/grants/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { bankHandler, newBank, pause, resumeBody, send, withOptions } from "./fixtures.js";
import { input } from "../helpers.js";

/** A trail that refuses entries of the kinds in `failing` (a storage outage for those writes). */
function flakyAudit(failing: Set<string>): AuditLog & { inner: MemoryAuditLog } {
  const inner = new MemoryAuditLog();
  return {
    inner,
    append: (threadId: string, record: AuditRecord) => {
      const kind = (record as { kind: string }).kind;
      const decision = (record as { decision?: string }).decision;
      if (failing.has(kind) || (decision !== undefined && failing.has(`${kind}:${decision}`)))
        return Promise.reject(new Error("audit storage is down"));
      return inner.append(threadId, record);
    },
    entries: (threadId: string) =>
      failing.has("entries") ? Promise.reject(new Error("audit storage is down")) : inner.entries(threadId),
  };
}

const modes = {
  store: () => ({
    stores: { thread: new MemoryThreadStore() },
    trust: { principal: (r: Request) => r.headers.get("x-user") ?? "" },
  }),
  stateless: () => ({ trust: { secret: "s3cret" } }),
};

describe("the audit trail fails closed", () => {
  for (const [mode, over] of Object.entries(modes)) {
    test(`${mode}: a question whose entry cannot be written is not shown`, async () => {
      const bank = newBank();
      const audit = flakyAudit(new Set(["request"]));
      const handle = bankHandler(bank, withOptions(over(), { stores: { audit } }));
      const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay bob 5" };
      const r = await send(handle, input({ threadId: "t", messages: [say] }), { "x-user": "ann" });
      expect(r.interrupts).toEqual([]);
      expect(["AUDIT_WRITE_FAILED", "HOOK_FAILED"]).toContain(r.error?.code);
      expect(bank.transfers).toEqual([]);
    });

    test(`${mode}: an approval whose entry cannot be written runs nothing; once the trail works, it runs once`, async () => {
      const bank = newBank();
      const failing = new Set(["decision"]);
      const audit = flakyAudit(failing);
      const handle = bankHandler(bank, withOptions(over(), { stores: { audit } }));
      const who = { "x-user": "ann" };
      const { turn } = await pause(handle, "t", "pay bob 5", who);
      const r = await send(handle, resumeBody("t", turn, { approved: true }), who);
      expect(["AUDIT_WRITE_FAILED", "HOOK_FAILED"]).toContain(r.error?.code);
      expect(bank.transfers).toEqual([]);
      failing.clear();
      const again = await send(
        handle,
        { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() },
        who,
      );
      expect(again.error).toBeUndefined();
      await send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() }, who);
      expect(bank.transfers.length).toBeLessThanOrEqual(mode === "store" ? 1 : 2);
      expect(bank.transfers.length).toBeGreaterThanOrEqual(1);
      // The approval is one answer, recorded once: statelessly a replay of the seal acts on it again, and each
      // execution has its own entry.
      const entries = await audit.entries("t");
      expect(entries.filter((e) => e.kind === "decision")).toHaveLength(1);
      expect(entries.filter((e) => e.kind === "execution" && e.claim === "claimed")).toHaveLength(
        bank.transfers.length,
      );
    });
  }

  // Before it records an answer, the gate looks it up in the thread's trail (a run continued after a reload reads
  // its answers again): a trail that cannot be read fails the step as a failed write does.
  test("an approval whose trail cannot be read runs nothing; once it can, it runs once and is recorded once", async () => {
    const bank = newBank();
    const failing = new Set<string>();
    const audit = flakyAudit(failing);
    const handle = bankHandler(bank, withOptions(modes.store(), { stores: { audit } }));
    const who = { "x-user": "ann" };
    const { turn } = await pause(handle, "t", "pay bob 5", who);
    failing.add("entries");
    const r = await send(handle, resumeBody("t", turn, { approved: true }), who);
    expect(["AUDIT_WRITE_FAILED", "HOOK_FAILED"]).toContain(r.error?.code);
    expect(bank.transfers).toEqual([]);
    failing.clear();
    const again = await send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() }, who);
    expect(again.error).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
    expect((await audit.entries("t")).filter((e) => e.kind === "decision")).toHaveLength(1);
  });

  test("a grant that would skip the question, when its use cannot be recorded, does not run the call", async () => {
    const bank = newBank();
    const failing = new Set<string>();
    const audit = flakyAudit(failing);
    const grantStore = new MemoryGrantStore();
    const store = new MemoryThreadStore();
    const principal = (r: Request) => r.headers.get("x-user") ?? "";
    const handle = bankHandler(bank, {
      stores: { thread: store, audit, grants: grantStore },
      trust: { principal, secret: "s3cret" },
    });
    const who = { "x-user": "ann" };
    const { turn } = await pause(handle, "t", "pay bob 5", who);
    await send(handle, resumeBody("t", turn, { approved: true, scope: "always" }), who);
    expect(bank.transfers).toHaveLength(1);
    failing.add("grant_use");
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay bob 5" };
    const r = await send(handle, input({ threadId: "t2", messages: [say], forwardedProps: { kaboo_grants: [] } }), who);
    expect(r.error).toBeDefined();
    expect(bank.transfers).toHaveLength(1);
    failing.clear();
    const ok = await send(
      handle,
      input({ threadId: "t3", messages: [say], forwardedProps: { kaboo_grants: [] } }),
      who,
    );
    expect(ok.error).toBeUndefined();
    expect(bank.transfers).toHaveLength(2);
    expect((await audit.entries("t3")).map((e) => e.kind)).toEqual(["grant_use", "execution"]);
  });
});
