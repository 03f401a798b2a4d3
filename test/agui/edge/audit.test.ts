/**
 * The audit trail through the edge handler: each question, answer (with the principal that gave it
 * and the resume entry's signature) and call is in the thread's trail, and reaches the client live
 * as CUSTOM kaboo_audit events; a resume delivered twice at once leaves one execution in the trail.
 */
import { verifyEvents } from "@ag-ui/client";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, test } from "vitest";
import { AUDIT_EVENT } from "../../../src/agui/index.js";
import { MemoryAuditLog, verifyAuditTrail, type AuditEntry } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { auditKinds } from "../../agent/audit-helpers.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";

const auditEvents = (events: BaseEvent[]) =>
  events.flatMap((e) =>
    e.type === EventType.CUSTOM && (e as { name?: string }).name === AUDIT_EVENT
      ? ((e as unknown as { value: { entries: AuditEntry[] } }).value.entries ?? [])
      : [],
  );

function setup() {
  const bank = newBank();
  const audit = new MemoryAuditLog();
  const handle = bankHandler(bank, {
    stores: { thread: new MemoryThreadStore(), audit },
    trust: { principal: (request) => request.headers.get("x-user") ?? "" },
  });
  return { bank, audit, handle };
}

describe("the edge handler's audit trail", () => {
  test("records the question, the answer with its principal and signature, and the call; the client sees each entry", async () => {
    const { bank, audit, handle } = setup();
    const who = { "x-user": "ann" };
    const { turn } = await pause(handle, "t1", "pay bob 5", who);
    const body = resumeBody("t1", turn, { approved: true });
    const signed = { ...body, resume: body.resume?.map((r) => ({ ...r, metadata: { signature: "sig-by-ann" } })) };
    const done = await send(handle, signed, who);
    expect(done.outcome).toBe("success");
    expect(bank.transfers).toHaveLength(1);
    for (const events of [turn.events, done.events])
      await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));

    const entries = await audit.entries("t1");
    expect(auditKinds(entries)).toEqual(["request", "decision:approved", "execution:claimed"]);
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 3 });
    expect(entries[0]).toMatchObject({ principal: "ann", tool: "transfer", subject: { key: "to:bob" } });
    expect(entries[1]).toMatchObject({
      principal: "ann",
      signature: "sig-by-ann",
      interruptId: turn.interrupts[0]?.id,
    });
    // Live: the pause's run sent the question's entry, the resume's run the rest, in order.
    expect([...auditEvents(turn.events), ...auditEvents(done.events)]).toEqual(entries);
  });

  test("the same resume twice at once: one execution in the trail, the trail unbroken", async () => {
    for (let trial = 0; trial < 5; trial++) {
      const { bank, audit, handle } = setup();
      const who = { "x-user": "ann" };
      const { turn } = await pause(handle, "t", "pay cleo 3", who);
      const body = resumeBody("t", turn, { approved: true });
      await Promise.all([send(handle, body, who), send(handle, { ...body, runId: crypto.randomUUID() }, who)]);
      expect(bank.transfers).toHaveLength(1);
      const entries = await audit.entries("t");
      expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
      expect(auditKinds(entries).filter((k) => k === "execution:claimed")).toHaveLength(1);
    }
  });
});

describe("a run that fails after an answer was read", () => {
  test("still sends the entries it wrote before the RUN_ERROR", async () => {
    const { runAgui } = await import("../../../src/agui/core/run.js");
    const { bankRunner } = await import("../fixtures.js");
    const { collect, input: runInput, interruptsOf, snap, stateOf, user } = await import("../helpers.js");
    const bank = newBank();
    const audit = new MemoryAuditLog();
    const first = await collect(
      runAgui({ agent: bankRunner(bank), audit, input: runInput({ threadId: "t", messages: [user("pay ann 3")] }) }),
    );
    const resume = [
      { interruptId: interruptsOf(first)[0]?.id ?? "", status: "resolved" as const, payload: { approved: true } },
    ];
    // Another holder runs the call now: this resume claims nothing and ends with CALL_IN_PROGRESS.
    const busy = {
      claim: async () => ({ status: "running" as const, leaseExpiresAt: Date.now() + 60_000 }),
      settle: async () => {},
      release: async () => {},
    };
    const events = await collect(
      runAgui({
        agent: bankRunner(bank),
        audit,
        ledger: busy,
        input: runInput({ threadId: "t", messages: snap(first), state: stateOf(first), resume }),
      }),
      false,
    );
    expect((events.at(-1) as unknown as { code?: string }).code).toBe("CALL_IN_PROGRESS");
    expect(auditEvents(events).map((e) => e.kind)).toEqual(["decision"]);
    expect(bank.transfers).toEqual([]);
  });
});
