/**
 * The audit trail's names, attacked: a principal's revocations are kept in the trail
 * `kaboo:grants:<principal>`, and a client names its own thread ids. A run on a thread of that
 * name would append the sender's questions and answers to another person's grant trail.
 */
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, verifyAuditTrail } from "../../../src/index.js";
import { MemoryGrantStore, grantsAuditThread } from "../../../src/grants/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { bankHandler, newBank, pause, post, resumeBody, send } from "./fixtures.js";

function setup() {
  const bank = newBank();
  const audit = new MemoryAuditLog();
  const grantStore = new MemoryGrantStore({ audit });
  const store = new MemoryThreadStore();
  const principal = (r: Request) => r.headers.get("x-user") ?? "";
  const handle = bankHandler(bank, {
    stores: { thread: store, audit, grants: grantStore },
    trust: { principal, secret: "s3cret" },
  });
  return { bank, audit, grantStore, handle, ann: { "x-user": "ann" }, mal: { "x-user": "mallory" } };
}

describe("audit trail names, attacked", () => {
  test("a thread named as a person's grant trail is refused at the door; that trail keeps revocations only", async () => {
    const s = setup();
    const { turn } = await pause(s.handle, "t", "pay bob 5", s.ann);
    await send(s.handle, resumeBody("t", turn, { approved: true, scope: "always" }), s.ann);
    expect(await s.grantStore.revoke((g) => g.principal === "ann")).toBe(1);
    const trail = grantsAuditThread("ann");
    const before = await s.audit.entries(trail);
    expect(before.map((e) => e.kind)).toEqual(["revocation"]);
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay eve 1" };
    for (const who of [s.mal, s.ann]) {
      const res = await s.handle(post(input({ threadId: trail, messages: [say] }), who));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "reserved_thread_id" });
    }
    for (const body of [{ kaboo_cancel: { threadId: trail } }, { kaboo_connect: { threadId: trail } }]) {
      expect((await s.handle(post(body, s.mal))).status).toBe(400);
    }
    expect(await s.audit.entries(trail)).toEqual(before);
    expect(await verifyAuditTrail(before)).toMatchObject({ ok: true });
    expect(s.bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });
});
