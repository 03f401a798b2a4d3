import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { findGrant, findGrants, indexGrants } from "../../src/grants/index.js";
import type { Grant, GrantQuery } from "../../src/grants/index.js";

const always = (tool: string, subjectKey?: string, extra: Partial<Grant> = {}): Grant => ({
  tool,
  ...(subjectKey === undefined ? {} : { subjectKey }),
  scope: "always",
  grantedAt: 0,
  ...extra,
});
const thread = (tool: string, threadId: string, subjectKey?: string, extra: Partial<Grant> = {}): Grant => ({
  ...always(tool, subjectKey, extra),
  scope: "thread",
  threadId,
});

// Both forms must behave identically: a plain scan and the index.
const lookups = [
  ["array", (grants: Grant[], q: GrantQuery) => findGrant(grants, q)],
  ["index", (grants: Grant[], q: GrantQuery) => findGrant(indexGrants(grants), q)],
] as const;

describe.each(lookups)("findGrant (%s)", (_name, find) => {
  test("exact tool name only, no globs or prefixes", () => {
    const grants = [always("merchant___*"), always("send")];
    expect(find(grants, { tool: "merchant___pay", now: 1 })).toBeUndefined();
    expect(find(grants, { tool: "send_money", now: 1 })).toBeUndefined();
    expect(find(grants, { tool: "send", now: 1 })).toBe(grants[1]);
  });

  test("a subject-less grant covers only subject-less calls, and the reverse", () => {
    const whole = always("pay");
    const one = always("pay", "acct:1");
    expect(find([whole], { tool: "pay", subjectKey: "acct:1", now: 1 })).toBeUndefined();
    expect(find([one], { tool: "pay", now: 1 })).toBeUndefined();
    expect(find([one], { tool: "pay", subjectKey: "acct:2", now: 1 })).toBeUndefined();
    expect(find([whole, one], { tool: "pay", subjectKey: "acct:1", now: 1 })).toBe(one);
    expect(find([whole, one], { tool: "pay", now: 1 })).toBe(whole);
    expect(find([always("pay", "")], { tool: "pay", now: 1 })).toBeUndefined();
    expect(find([always("pay", "null")], { tool: "pay", now: 1 })).toBeUndefined();
  });

  test("thread grants only in their thread; always grants everywhere", () => {
    const t1 = thread("pay", "t1");
    expect(find([t1], { tool: "pay", threadId: "t1", now: 1 })).toBe(t1);
    expect(find([t1], { tool: "pay", threadId: "t2", now: 1 })).toBeUndefined();
    expect(find([t1], { tool: "pay", now: 1 })).toBeUndefined();
    const a = always("pay");
    expect(find([a], { tool: "pay", threadId: "t9", now: 1 })).toBe(a);
    expect(find([a], { tool: "pay", now: 1 })).toBe(a);
  });

  test("expired grants are ignored; an unexpired one behind them is found", () => {
    const old = always("pay", undefined, { expiresAt: 100 });
    const fresh = thread("pay", "t1", undefined, { expiresAt: 300 });
    expect(find([old], { tool: "pay", now: 99 })).toBe(old);
    expect(find([old], { tool: "pay", now: 100 })).toBeUndefined();
    expect(find([old, fresh], { tool: "pay", threadId: "t1", now: 200 })).toBe(fresh);
    expect(find([old, fresh], { tool: "pay", threadId: "t1", now: 300 })).toBeUndefined();
  });

  test("defaults now to the clock", () => {
    expect(find([always("pay", undefined, { expiresAt: 1 })], { tool: "pay" })).toBeUndefined();
    expect(find([always("pay", undefined, { expiresAt: Date.now() + 60_000 })], { tool: "pay" })).toBeDefined();
  });

  test("__proto__, constructor and toString are ordinary names", () => {
    const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];
    for (const name of names) {
      expect(find([], { tool: name, now: 1 })).toBeUndefined();
      expect(find([], { tool: "pay", subjectKey: name, now: 1 })).toBeUndefined();
      expect(find([always("pay", "x")], { tool: "pay", subjectKey: name, now: 1 })).toBeUndefined();
      expect(find([always("pay")], { tool: "pay", subjectKey: name, now: 1 })).toBeUndefined();
      expect(find([always("pay")], { tool: name, now: 1 })).toBeUndefined();
      const g = always(name, name);
      expect(find([g], { tool: name, subjectKey: name, now: 1 })).toBe(g);
      expect(find([g], { tool: name, now: 1 })).toBeUndefined();
    }
    expect(({} as Record<string, unknown>)["admin"]).toBeUndefined();
  });
});

describe("findGrant properties", () => {
  const name = fc.constantFrom("pay", "search", "__proto__", "constructor", "toString", "a", "");
  const subject = fc.option(fc.constantFrom("x", "y", "__proto__", "constructor", "null", ""), { nil: undefined });
  const threadArb = fc.constantFrom("t1", "t2", "__proto__");
  const time = fc.integer({ min: 0, max: 1_000 });
  const grantArb: fc.Arbitrary<Grant> = fc
    .record({
      tool: name.filter((n) => n !== ""),
      subjectKey: subject,
      scope: fc.constantFrom("thread" as const, "always" as const),
      threadId: threadArb,
      grantedAt: time,
      expiresAt: fc.option(fc.integer({ min: 1, max: 1_000 }), { nil: undefined }),
    })
    .map(({ threadId, subjectKey, expiresAt, grantedAt, ...g }) => ({
      ...g,
      ...(subjectKey === undefined ? {} : { subjectKey }),
      ...(g.scope === "thread" ? { threadId } : {}),
      grantedAt: expiresAt === undefined ? grantedAt : Math.min(grantedAt, expiresAt - 1),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    }));
  const queryArb = fc.record({
    tool: name,
    subjectKey: subject,
    threadId: fc.option(threadArb, { nil: undefined }),
    now: time,
  });

  test("never returns a grant for another tool, subject or thread, nor an expired one; array and index agree", () => {
    fc.assert(
      fc.property(fc.array(grantArb, { maxLength: 30 }), queryArb, (grants, query) => {
        const found = findGrant(grants, query);
        const index = indexGrants(grants);
        expect(findGrant(index, query)).toBe(found);
        const eligible = grants.filter(
          (g) =>
            g.tool === query.tool &&
            g.subjectKey === query.subjectKey &&
            (g.expiresAt === undefined || g.expiresAt > query.now) &&
            (g.scope === "always" || (query.threadId !== undefined && g.threadId === query.threadId)),
        );
        expect(findGrants(grants, query)).toEqual(eligible);
        expect(findGrants(index, query)).toEqual(eligible);
        if (found === undefined) {
          expect(eligible).toEqual([]);
          return;
        }
        expect(grants).toContain(found);
        expect(found.tool).toBe(query.tool);
        expect(found.subjectKey).toBe(query.subjectKey);
        if (found.scope === "thread") expect(found.threadId).toBe(query.threadId);
        if (found.expiresAt !== undefined) expect(found.expiresAt).toBeGreaterThan(query.now);
        expect(found).toBe(eligible[0]);
      }),
      { numRuns: 2_000 },
    );
  });
});
