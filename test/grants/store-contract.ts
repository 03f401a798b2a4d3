/** The behaviour every GrantStore shares; run against each store, in Node and in Chromium. */
import { expect, test, vi } from "vitest";
import type { AuditLog } from "../../src/agent/audit/audit.js";
import { InvalidGrantError, grantId, grantsAuditThread } from "../../src/grants/index.js";
import { verifyAuditTrail } from "../../src/index.js";
import type { GrantChange, GrantStore } from "../../src/grants/index.js";

export function grantStoreContract(make: (now: () => number) => GrantStore): void {
  test("grant stores a validated copy with grantedAt from the clock, and list returns it", async () => {
    const store = make(() => 500);
    const input = { tool: "pay", subjectKey: "acct:1", scope: "always" as const, extra: "dropped" };
    const granted = await store.grant(input);
    expect(granted).toEqual({ tool: "pay", subjectKey: "acct:1", scope: "always", grantedAt: 500 });
    expect(await store.list()).toEqual([granted]);
    const explicit = await store.grant({ tool: "search", scope: "always", grantedAt: 7 });
    expect(explicit.grantedAt).toBe(7);
  });

  test("re-granting the same scope/thread/tool/subject replaces instead of duplicating", async () => {
    const store = make(() => 1);
    await store.grant({ tool: "pay", subjectKey: "a", scope: "thread", threadId: "t1", subjectLabel: "old" });
    await store.grant({
      tool: "pay",
      subjectKey: "a",
      scope: "thread",
      threadId: "t1",
      subjectLabel: "new",
      grantedAt: 2,
    });
    await store.grant({ tool: "pay", subjectKey: "a", scope: "thread", threadId: "t2" });
    await store.grant({ tool: "pay", subjectKey: "a", scope: "always" });
    const list = await store.list();
    expect(list).toHaveLength(3);
    expect(list.filter((g) => g.threadId === "t1")).toEqual([
      { tool: "pay", subjectKey: "a", subjectLabel: "new", scope: "thread", threadId: "t1", grantedAt: 2 },
    ]);
  });

  test("invalid grants are refused with InvalidGrantError and nothing is stored", async () => {
    const store = make(() => 1);
    const bad: unknown[] = [
      { tool: "pay", scope: "thread" },
      { tool: "pay", scope: "always", threadId: "t1" },
      { tool: "pay", scope: "once" },
      { tool: "", scope: "always" },
      { tool: "pay", scope: "always", grantedAt: 5, expiresAt: 5 },
    ];
    for (const input of bad) {
      await expect(store.grant(input as never)).rejects.toBeInstanceOf(InvalidGrantError);
    }
    expect(await store.list()).toEqual([]);
  });

  test("grantsFor returns this thread's and always grants, unexpired, never another thread's", async () => {
    const store = make(() => 100);
    await store.grant({ tool: "a", scope: "thread", threadId: "t1" });
    await store.grant({ tool: "b", scope: "thread", threadId: "t2" });
    await store.grant({ tool: "c", scope: "always" });
    await store.grant({ tool: "d", scope: "always", expiresAt: 150 });
    await store.grant({ tool: "e", scope: "thread", threadId: "t1", expiresAt: 120 });
    const tools = async (thread: string, now?: number) =>
      (await store.grantsFor(thread, now === undefined ? {} : { now })).map((g) => g.tool).sort();
    expect(await tools("t1")).toEqual(["a", "c", "d", "e"]);
    expect(await tools("t2")).toEqual(["b", "c", "d"]);
    expect(await tools("t3")).toEqual(["c", "d"]);
    expect(await tools("t1", 120)).toEqual(["a", "c", "d"]);
    expect(await tools("t1", 150)).toEqual(["a", "c"]);
    expect(await tools("__proto__")).toEqual(["c", "d"]);
  });

  test("revoke by id, by key fields, by predicate; revokeAll empties", async () => {
    const store = make(() => 1);
    const a = await store.grant({ tool: "pay", subjectKey: "x", scope: "always" });
    await store.grant({ tool: "pay", scope: "always" });
    await store.grant({ tool: "pay", subjectKey: "x", scope: "thread", threadId: "t1" });
    await store.grant({ tool: "__proto__", subjectKey: "constructor", scope: "always" });
    await store.grant({ tool: "search", scope: "always" });
    expect(await store.revoke(grantId(a))).toBe(1);
    expect(await store.revoke(grantId(a))).toBe(0);
    expect(await store.revoke("no such id")).toBe(0);
    // Key fields are exact: no subjectKey means the whole-tool grant only.
    expect(await store.revoke({ tool: "pay", scope: "always" })).toBe(1);
    expect((await store.list()).map((g) => g.tool).sort()).toEqual(["__proto__", "pay", "search"]);
    expect(await store.revoke({ tool: "__proto__", subjectKey: "constructor", scope: "always" })).toBe(1);
    expect(await store.revoke((g) => g.scope === "thread")).toBe(1);
    expect((await store.list()).map((g) => g.tool)).toEqual(["search"]);
    await store.revokeAll();
    expect(await store.list()).toEqual([]);
  });

  test("subscribe sees local changes with ids; unsubscribe stops it; a throwing listener does not break others", async () => {
    const store = make(() => 1);
    const seen: GrantChange[] = [];
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const stopBad = store.subscribe(() => {
      throw new Error("listener bug");
    });
    const stop = store.subscribe((change) => seen.push(change));
    const g = await store.grant({ tool: "pay", scope: "always" });
    await store.revoke(grantId(g));
    await store.revoke("missing");
    await store.revokeAll();
    expect(seen).toEqual([
      { type: "grant", ids: [grantId(g)], origin: "local" },
      { type: "revoke", ids: [grantId(g)], origin: "local" },
      { type: "clear", ids: [], origin: "local" },
    ]);
    expect(errors).toHaveBeenCalledTimes(3);
    errors.mockRestore();
    stop();
    stopBad();
    await store.grant({ tool: "pay", scope: "always" });
    expect(seen).toHaveLength(3);
  });

  test("returned grants are copies: mutating them does not change the store", async () => {
    const store = make(() => 1);
    const g = await store.grant({ tool: "pay", scope: "always" });
    g.tool = "other";
    const [listed] = await store.list();
    if (listed) listed.scope = "thread";
    expect(await store.list()).toEqual([{ tool: "pay", scope: "always", grantedAt: 1 }]);
  });
}

/**
 * The revocation record every page-side store keeps when given an audit trail: one `revocation`
 * entry per principal per revoke, in that principal's grants trail, chained like any other trail;
 * nothing for a revoke that took nothing back; and a trail that cannot write makes the revoke reject
 * (the person must not believe a revocation was recorded when it was not).
 */
export function grantStoreAuditContract(make: (audit: AuditLog) => GrantStore, newAudit: () => AuditLog): void {
  test("each revoke that took something back is one revocation entry per principal, in its grants trail", async () => {
    const audit = newAudit();
    const store = make(audit);
    const ann = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    const ann2 = await store.grant({ tool: "wire", scope: "always", principal: "ann" });
    const bob = await store.grant({ tool: "pay", scope: "always", principal: "bob" });
    const anyone = await store.grant({ tool: "search", scope: "always" });

    expect(await store.revoke(grantId(ann))).toBe(1);
    expect(await store.revoke("no such grant")).toBe(0);
    expect(await store.revoke((g) => g.tool === "pay" || g.tool === "wire")).toBe(2);
    await store.revokeAll();

    const annTrail = await audit.entries(grantsAuditThread("ann"));
    expect(annTrail.map((e) => (e.kind === "revocation" ? e.grantIds : e.kind))).toEqual([
      [grantId(ann)],
      [grantId(ann2)],
    ]);
    expect(annTrail.every((e) => e.kind === "revocation" && e.principal === "ann")).toBe(true);
    const bobTrail = await audit.entries(grantsAuditThread("bob"));
    expect(bobTrail.map((e) => (e.kind === "revocation" ? e.grantIds : e.kind))).toEqual([[grantId(bob)]]);
    const nobody = await audit.entries(grantsAuditThread(undefined));
    expect(nobody).toMatchObject([{ kind: "revocation", grantIds: [grantId(anyone)], principal: null }]);
    for (const trail of [annTrail, bobTrail, nobody]) expect(await verifyAuditTrail(trail)).toMatchObject({ ok: true });
  });

  test("a trail that cannot write makes the revoke reject; the grant is gone all the same", async () => {
    const audit = newAudit();
    const failing: AuditLog = {
      append: () => Promise.reject(new Error("disk full")),
      entries: (threadId) => audit.entries(threadId),
    };
    const store = make(failing);
    const g = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    await expect(store.revoke(grantId(g))).rejects.toThrow("disk full");
    expect(await store.list()).toEqual([]);
  });
}
