import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  GRANT_VERSION,
  InvalidGrantError,
  grantId,
  isExpired,
  parseGrant,
  parseGrants,
} from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";

const ok: Grant = { tool: "send_money", subjectKey: "acct:42", scope: "thread", threadId: "t1", grantedAt: 1_000 };

describe("parseGrants", () => {
  test("keeps valid entries and reports each corrupt one with a reason", () => {
    const input = [
      ok,
      { tool: "search", scope: "always", grantedAt: 5 },
      null,
      "send_money",
      { tool: "", scope: "always", grantedAt: 1 },
      { tool: "x", scope: "once", grantedAt: 1 },
      { tool: "x", scope: "thread", grantedAt: 1 },
      { tool: "x", scope: "always", threadId: "t1", grantedAt: 1 },
      { tool: "x", scope: "always", grantedAt: "2024-01-01T00:00:00Z" },
      { tool: "x", scope: "always", grantedAt: 10, expiresAt: 10 },
      { tool: "x", scope: "always", grantedAt: Number.NaN },
      { tool: "x", scope: "always", grantedAt: -1 },
      { tool: "x", scope: "always", grantedAt: 1.5 },
      { tool: "x", scope: "always", grantedAt: 2 ** 53 },
      { tool: "x", scope: "always", grantedAt: Number.POSITIVE_INFINITY },
      { tool: "x", scope: "always", grantedAt: 1, expiresAt: 2.5 },
      { tool: 7, scope: "always", grantedAt: 1 },
      { tool: "x", subjectKey: 42, scope: "always", grantedAt: 1 },
    ];
    const { grants, rejected } = parseGrants(input);
    expect(grants).toEqual([ok, { tool: "search", scope: "always", grantedAt: 5 }]);
    expect(rejected).toHaveLength(input.length - 2);
    expect(rejected.map((r) => r.value)).toEqual(input.slice(2));
    expect(rejected[4]?.reason).toMatch(/threadId: required when scope is "thread"/);
    expect(rejected[5]?.reason).toMatch(/threadId: not allowed/);
    expect(rejected[7]?.reason).toMatch(/expiresAt: must be after grantedAt/);
    for (const r of rejected) expect(r.reason.length).toBeGreaterThan(0);
  });

  test("absent means no grants; a non-array is one rejection", () => {
    expect(parseGrants(undefined)).toEqual({ grants: [], rejected: [], ignored: 0 });
    expect(parseGrants(null)).toEqual({ grants: [], rejected: [], ignored: 0 });
    const bad = { 0: ok, length: 1 };
    expect(parseGrants(bad)).toEqual({
      grants: [],
      rejected: [{ value: bad, reason: "grants must be an array" }],
      ignored: 0,
    });
  });

  test("strips unknown keys, including an own __proto__ from JSON", () => {
    const raw = JSON.parse('[{"tool":"a","scope":"always","grantedAt":1,"__proto__":{"admin":true},"extra":1}]');
    const { grants } = parseGrants(raw);
    expect(grants).toHaveLength(1);
    expect(Object.keys(grants[0] as object).sort()).toEqual(["grantedAt", "scope", "tool"]);
    expect(Object.getPrototypeOf(grants[0])).toBe(Object.prototype);
    expect((grants[0] as unknown as Record<string, unknown>)["admin"]).toBeUndefined();
  });

  test("returns fresh objects, so later mutation of the input cannot change a parsed grant", () => {
    const input = { ...ok };
    const { grants } = parseGrants([input]);
    input.tool = "other";
    expect(grants[0]?.tool).toBe("send_money");
  });

  test("accepts __proto__/constructor as tool names and subject keys", () => {
    const { grants, rejected } = parseGrants([
      { tool: "__proto__", subjectKey: "constructor", scope: "always", grantedAt: 1 },
    ]);
    expect(rejected).toEqual([]);
    expect(grants[0]).toEqual({ tool: "__proto__", subjectKey: "constructor", scope: "always", grantedAt: 1 });
  });
});

describe("parseGrant / grantId / isExpired", () => {
  test("parseGrant reports failure without throwing", () => {
    expect(parseGrant({})).toMatchObject({ ok: false });
    expect(parseGrant(ok)).toEqual({ ok: true, grant: ok });
  });

  test("grantId depends on scope, thread, tool and subject only", () => {
    const relabelled: Grant = { ...ok, subjectLabel: "Account 42", grantedAt: 9 };
    expect(grantId(ok)).toBe(grantId(relabelled));
    const ids = new Set([
      grantId(ok),
      grantId({ ...ok, threadId: "t2" }),
      grantId({ ...ok, tool: "x" }),
      grantId({ ...ok, subjectKey: undefined }),
      grantId({ ...ok, subjectKey: "null" }),
      grantId({ scope: "always", tool: "send_money", subjectKey: "acct:42" }),
      grantId({ scope: "always", tool: "send_money", subjectKey: undefined }),
    ]);
    expect(ids.size).toBe(7);
  });

  // Stores key grants by this text and revocations name them by it: it must stay the JSON array, whatever the strings
  // hold (a faster hand-written form was tried and dropped; this is what it had to equal).
  test("grantId is the JSON array of scope, thread, tool, subject (and principal) for any strings", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.constantFrom('"', "\\", "\u2028", "\ud800", "\n"),
    );
    fc.assert(
      fc.property(
        fc.record(
          { scope: fc.constantFrom("thread", "always"), tool: text, threadId: text, subjectKey: text, principal: text },
          { requiredKeys: ["scope", "tool"] },
        ),
        (g) => {
          const parts = [g.scope, g.threadId ?? null, g.tool, g.subjectKey ?? null];
          const expected = JSON.stringify(g.principal === undefined ? parts : [...parts, g.principal]);
          expect(grantId(g as Grant)).toBe(expected);
        },
      ),
    );
    // Fields that are not strings (a revoke target's, unchecked) are written by JSON.stringify, as before.
    expect(grantId({ scope: "always", tool: "x", threadId: null, subjectKey: 5 } as never)).toBe(
      '["always",null,"x",5]',
    );
  });

  test("isExpired is exclusive at expiresAt", () => {
    expect(isExpired({ expiresAt: 10 }, 9)).toBe(false);
    expect(isExpired({ expiresAt: 10 }, 10)).toBe(true);
    expect(isExpired({}, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  test("InvalidGrantError has a literal code", () => {
    const error = new InvalidGrantError("tool: too short");
    expect(error.code).toBe("INVALID_GRANT");
    expect(error.name).toBe("InvalidGrantError");
    expect(GRANT_VERSION).toBe(2);
  });
});
