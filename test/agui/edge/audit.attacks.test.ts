/**
 * The audit trail has an entry for every path, not only the happy one: a denial, an answer past
 * its deadline, a run stopped while its approved call executes, a dropped connection during the
 * call, and a replayed resume; and verifyAuditTrail sees an entry cut from the head, the middle,
 * or (given the head kept elsewhere) the tail.
 */
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, verifyAuditTrail } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { auditKinds } from "../../agent/audit-helpers.js";
import { heldCall, bankHandler, newBank, pause, post, resumeBody, send, type BankOptions } from "./fixtures.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(o: BankOptions = {}) {
  const bank = newBank();
  const audit = new MemoryAuditLog();
  const store = new MemoryThreadStore();
  const handle = bankHandler(
    bank,
    { stores: { thread: store, audit }, trust: { principal: (r) => r.headers.get("x-user") ?? "" } },
    o,
  );
  return { bank, audit, store, handle, who: { "x-user": "ann" } };
}

describe("audit trail on every path", () => {
  test("a denial: the question and the denial, no execution; the denial replayed adds nothing", async () => {
    const s = setup();
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.who);
    const body = resumeBody("t", turn, { approved: false, reason: "no" });
    const denied = await send(s.handle, body, s.who);
    expect(denied.error).toBeUndefined();
    await send(s.handle, { ...body, runId: crypto.randomUUID() }, s.who);
    const entries = await s.audit.entries("t");
    expect(auditKinds(entries)).toEqual(["request", "decision:denied"]);
    expect(entries[1]).toMatchObject({ principal: "ann" });
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
    expect(s.bank.transfers).toEqual([]);
  });

  test("an approval past its deadline is recorded as expired, and nothing runs", async () => {
    const s = setup({ ttlSeconds: 1 });
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.who);
    await sleep(1_100);
    const late = await send(s.handle, resumeBody("t", turn, { approved: true }), s.who);
    // Refused before anything is read: it decided nothing, so the trail holds only the question.
    expect(late.error?.code).toBe("INTERRUPT_EXPIRED");
    expect(auditKinds(await s.audit.entries("t"))).toEqual(["request"]);
    const body = resumeBody("t", turn, {});
    const ended = await send(
      s.handle,
      { ...body, resume: body.resume?.map((r) => ({ ...r, status: "cancelled" as const })) },
      s.who,
    );
    expect(ended.error).toBeUndefined();
    const entries = await s.audit.entries("t");
    expect(s.bank.transfers).toEqual([]);
    expect(auditKinds(entries)).toEqual(["request", "decision:expired"]);
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
  });

  test("a Stop after the approval, before the call starts: the trail has the approval and no execution", async () => {
    const held = heldCall();
    const s = setup({ hold: held.hold });
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.who);
    const running = send(s.handle, resumeBody("t", turn, { approved: true }), s.who);
    await held.started;
    const stop = await s.handle(post({ kaboo_cancel: { threadId: "t" } }, s.who));
    expect(stop.status).toBe(202);
    held.release();
    const stopped = await running;
    expect(stopped.outcome).toBe("cancelled");
    expect(s.bank.transfers).toEqual([]);
    const entries = await s.audit.entries("t");
    expect(auditKinds(entries)).toEqual(["request", "decision:approved"]);
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
  });

  test("a connection dropped while the approved call executes: the trail still has the call and its result", async () => {
    const held = heldCall();
    const s = setup({ hold: held.hold });
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.who);
    const res = await s.handle(post(resumeBody("t", turn, { approved: true }), s.who));
    const reader = res.body!.getReader();
    await reader.read();
    await held.started;
    await reader.cancel();
    held.release();
    for (let i = 0; i < 100 && (await s.store.load("t")).lease !== null; i++) await sleep(10);
    const entries = await s.audit.entries("t");
    expect(s.bank.transfers).toHaveLength(1);
    expect(auditKinds(entries)).toEqual(["request", "decision:approved", "execution:claimed"]);
    expect(entries[2]).toMatchObject({ status: "success" });
  });

  test("verifyAuditTrail: an entry cut from the head or the middle is found; the tail only against a kept head", async () => {
    const s = setup();
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.who);
    await send(s.handle, resumeBody("t", turn, { approved: true }), s.who);
    const entries = await s.audit.entries("t");
    expect(entries.length).toBeGreaterThanOrEqual(3);
    const whole = await verifyAuditTrail(entries);
    expect(whole).toMatchObject({ ok: true });
    const head = whole.ok ? whole.head : null;
    expect(await verifyAuditTrail(entries.slice(1), { threadId: "t" })).toMatchObject({
      ok: false,
      problem: "dropped",
    });
    expect(await verifyAuditTrail([entries[0], ...entries.slice(2)])).toMatchObject({ ok: false, problem: "dropped" });
    expect(await verifyAuditTrail(entries.slice(0, -1))).toMatchObject({ ok: true });
    expect(await verifyAuditTrail(entries.slice(0, -1), { head: head ?? undefined })).toMatchObject({
      ok: false,
      problem: "truncated",
    });
    expect(await verifyAuditTrail([], { head: head ?? undefined })).toMatchObject({ ok: false, problem: "truncated" });
    const other = entries.map((e) => ({ ...e }));
    expect(await verifyAuditTrail(other, { threadId: "u" })).toMatchObject({ ok: false, problem: "other_thread" });
  });
});
