/**
 * Malformed-but-valid resume lists: one interrupt answered twice in one resume with different
 * answers, with a thread store and statelessly over a shared ledger. What runs and what the audit
 * trail says was decided must agree, and a later resume cannot pick the other answer.
 */
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, MemoryExecutionLedger } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { auditKinds } from "../../agent/audit-helpers.js";
import { bankHandler, newBank, pause, resumeBody, send, type Turn } from "./fixtures.js";

const twice = (turn: Turn, first: unknown, second: unknown) => {
  const body = resumeBody("t", turn, first);
  const [entry] = body.resume ?? [];
  return { ...body, resume: entry ? [entry, { ...entry, payload: second }] : [] };
};

describe("one interrupt answered twice in one resume", () => {
  for (const order of [
    [{ approved: false }, { approved: true }],
    [{ approved: true }, { approved: false }],
  ] as const) {
    test(`with a store (${JSON.stringify(order)}): the trail records what ran, once`, async () => {
      const bank = newBank();
      const audit = new MemoryAuditLog();
      const store = new MemoryThreadStore();
      const handle = bankHandler(bank, {
        stores: { thread: store, audit },
        trust: { principal: (r) => r.headers.get("x-user") ?? "" },
      });
      const who = { "x-user": "ann" };
      const { turn } = await pause(handle, "t", "pay bob 5", who);
      const r = await send(handle, twice(turn, order[0], order[1]), who);
      const kinds = auditKinds(await audit.entries("t"));
      const decisions = kinds.filter((k) => k.startsWith("decision"));
      expect(decisions.length).toBeLessThanOrEqual(1);
      if (bank.transfers.length) expect(decisions).toEqual(["decision:approved"]);
      else expect(decisions).not.toContain("decision:approved");
      expect(bank.transfers.length).toBeLessThanOrEqual(1);
      // The other answer sent on its own afterwards changes nothing.
      const ran = bank.transfers.length;
      await send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() }, who);
      expect(bank.transfers.length).toBe(ran);
      expect(r.events.length).toBeGreaterThan(0);
    });

    test(`stateless over a shared ledger (${JSON.stringify(order)}): refused, and neither answer is kept`, async () => {
      const bank = newBank();
      const audit = new MemoryAuditLog();
      const ledger = new MemoryExecutionLedger();
      const handle = bankHandler(bank, { trust: { secret: "s3cret" }, stores: { ledger, audit } });
      const { turn } = await pause(handle, "t", "pay bob 5");
      const both = await send(handle, twice(turn, order[0], order[1]));
      expect(both.error?.code).toBe("INVALID_PAYLOAD");
      expect(auditKinds(await audit.entries("t"))).toEqual(["request"]);
      // Nothing was recorded: the person's own single answer is the one that counts.
      const denied = await send(handle, { ...resumeBody("t", turn, { approved: false }), runId: crypto.randomUUID() });
      expect(denied.error).toBeUndefined();
      const approved = await send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() });
      expect(approved.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
      expect(bank.transfers).toEqual([]);
    });
  }
});
