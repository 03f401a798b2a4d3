/**
 * MemoryGrantStore's synchronous cover (`[coverNow]`, what the AI SDK gate asks) against the path it stands for:
 * `findGrant` over what `grantsFor` hands out. Same grant or none for any grants, query, clock and principal;
 * `null` (ask grantsFor) for a store whose grantsFor or list is not the shipped one; a copy that changes nothing.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { coverNow, findGrant, type GrantQuery } from "../../src/grants/find.js";
import { grantId, type Grant } from "../../src/grants/grant.js";
import { MemoryGrantStore, type GrantInput } from "../../src/grants/store.js";

const tool = fc.constantFrom("pay", "refund", "__proto__");
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const subjectKey = maybe(fc.constantFrom("to:bob", "to:ann", "null", ""));
const thread = fc.constantFrom("t1", "t2", "");
const principal = maybe(fc.constantFrom("ann", "bob", ""));
const time = fc.integer({ min: 0, max: 20 });
const input: fc.Arbitrary<GrantInput> = fc
  .record({
    tool,
    subjectKey,
    scope: fc.constantFrom("thread" as const, "always" as const),
    threadId: thread,
    principal,
    expiresAt: maybe(time),
  })
  .map((g) => (g.scope === "always" ? { ...g, threadId: undefined } : g));
const query: fc.Arbitrary<GrantQuery> = fc.record({
  tool,
  subjectKey,
  threadId: maybe(thread),
  principal,
  now: maybe(time),
  scopes: maybe(fc.subarray(["thread", "always"] as const)),
});

/** What the gate asked before coverNow: grantsFor (the thread and person), then findGrant over that list. */
async function slowCover(store: MemoryGrantStore, threadId: string, q: GrantQuery, clock: number) {
  const now = q.now ?? clock;
  const out = await store.grantsFor(threadId, { now: q.now, principal: q.principal });
  return findGrant(out, { ...q, now });
}

async function filled(inputs: GrantInput[], clock: () => number): Promise<MemoryGrantStore> {
  const store = new MemoryGrantStore({ now: clock });
  for (const g of inputs)
    try {
      await store.grant(g);
    } catch {} // a grant the store refuses (an empty thread id) is simply not there
  return store;
}

describe("MemoryGrantStore [coverNow]", () => {
  test("property: the same grant findGrant picks from grantsFor, for any grants, query, clock and principal", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(input, { maxLength: 8 }),
        thread,
        query,
        time,
        fc.array(fc.nat({ max: 7 }), { maxLength: 3 }),
        async (inputs, threadId, q, clock, revoked) => {
          const store = await filled(inputs, () => clock);
          const all = await store.list();
          for (const i of revoked) if (all[i]) await store.revoke(grantId(all[i]));
          const fast = store[coverNow](threadId, q);
          expect(fast).not.toBeNull();
          expect(fast).toEqual(await slowCover(store, threadId, q, clock));
        },
      ),
      { numRuns: 400 },
    );
  });

  test("a grant revoked, or expiring, between two calls covers the second one no more", async () => {
    let clock = 5;
    const store = new MemoryGrantStore({ now: () => clock });
    await store.grant({ tool: "pay", scope: "always", expiresAt: 10 });
    await store.grant({ tool: "refund", scope: "thread", threadId: "t1" });
    const q = { tool: "pay", threadId: "t1", scopes: ["thread", "always"] as const };
    expect(store[coverNow]("t1", q)?.tool).toBe("pay");
    clock = 10;
    expect(store[coverNow]("t1", q)).toBeUndefined();
    expect(store[coverNow]("t1", { ...q, now: 9 })?.tool).toBe("pay");
    const r = { tool: "refund", threadId: "t1" };
    expect(store[coverNow]("t1", r)?.tool).toBe("refund");
    expect(store[coverNow]("t2", { ...r, threadId: "t2" })).toBeUndefined();
    await store.revoke((g) => g.tool === "refund");
    expect(store[coverNow]("t1", r)).toBeUndefined();
  });

  test("the grant it answers is a copy: changing it changes nothing stored", async () => {
    const store = new MemoryGrantStore({ now: () => 1 });
    await store.grant({ tool: "pay", scope: "thread", threadId: "t1", principal: "ann" });
    const q = { tool: "pay", threadId: "t1", principal: "ann" };
    const got = store[coverNow]("t1", q) as Grant;
    Object.assign(got, { scope: "always", threadId: undefined, principal: undefined, expiresAt: 0, tool: "x" });
    expect(store[coverNow]("t1", q)).toEqual({
      tool: "pay",
      scope: "thread",
      threadId: "t1",
      principal: "ann",
      grantedAt: 1,
    });
    expect(store[coverNow]("t2", { tool: "pay", threadId: "t2" })).toBeUndefined();
  });

  test("null (ask grantsFor) for a subclass's grantsFor or list, or one replaced on the instance; not for its grant", async () => {
    class OwnGrantsFor extends MemoryGrantStore {
      override async grantsFor(): Promise<Grant[]> {
        return [];
      }
    }
    class OwnList extends MemoryGrantStore {
      override async list(): Promise<Grant[]> {
        return [];
      }
    }
    class OwnGrant extends MemoryGrantStore {
      override async grant(i: GrantInput): Promise<Grant> {
        return super.grant({ ...i, tool: `audited:${i.tool}` });
      }
    }
    const q = { tool: "pay", threadId: "t1" };
    for (const S of [OwnGrantsFor, OwnList]) {
      const store = new S();
      await store.grant({ tool: "pay", scope: "always" });
      expect(store[coverNow]("t1", q)).toBeNull();
    }
    const replaced = [new MemoryGrantStore(), new MemoryGrantStore()];
    for (const store of replaced) await store.grant({ tool: "pay", scope: "always" });
    (replaced[0] as { grantsFor: unknown }).grantsFor = async () => [];
    (replaced[1] as { list: unknown }).list = async () => [];
    for (const store of replaced) expect(store[coverNow]("t1", q)).toBeNull();
    const own = new OwnGrant();
    await own.grant({ tool: "pay", scope: "always" });
    expect(own[coverNow]("t1", q)).toBeUndefined();
    expect(own[coverNow]("t1", { ...q, tool: "audited:pay" })?.tool).toBe("audited:pay");
  });
});
