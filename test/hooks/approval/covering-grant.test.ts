/**
 * coveringGrant (src/hooks/approval/decision.ts), which every gate built from GateRules asks: the scopes a rule's
 * `remember` reaches, and that a lookup (a store or hook of one's own is handed the query) cannot change them for
 * every later lookup.
 */
import { describe, expect, test } from "vitest";
import type { GrantQuery } from "../../../src/grants/find.js";
import { GRANT_SCOPES, type Grant } from "../../../src/grants/grant.js";
import { coveringGrant } from "../../../src/hooks/approval/decision.js";

const call = { tool: "pay", subjectKey: undefined, threadId: "t1", principal: undefined, now: 1 };
const grant: Grant = { tool: "pay", scope: "always", grantedAt: 0 };

function scopesAsked(remember: string): (readonly string[] | undefined)[] {
  const asked: (readonly string[] | undefined)[] = [];
  const found = coveringGrant(
    (q) => {
      asked.push(q.scopes ? [...q.scopes] : undefined);
      return grant;
    },
    { ...call, remember: remember as "once" },
  );
  if (asked.length === 0) expect(found).toBeUndefined();
  return asked;
}

describe("coveringGrant", () => {
  test("once never looks a grant up, thread reaches thread grants, always both, a bogus remember none", () => {
    expect(scopesAsked("once")).toEqual([]);
    expect(scopesAsked("thread")).toEqual([["thread"]]);
    expect(scopesAsked("always")).toEqual([["thread", "always"]]);
    for (const bogus of ["forever", "", "Always", "__proto__", "toString"]) expect(scopesAsked(bogus)).toEqual([]);
  });

  test("a lookup that tries to widen or empty the scopes it is handed changes no later lookup, nor GRANT_SCOPES", () => {
    for (const remember of ["thread", "always"] as const) {
      const attack = (q: GrantQuery) => {
        const scopes = q.scopes as string[];
        try {
          scopes.push("forever");
        } catch {}
        try {
          scopes.length = 0;
        } catch {}
        try {
          scopes[0] = "always";
        } catch {}
        return undefined;
      };
      coveringGrant(attack, { ...call, remember });
    }
    expect([...GRANT_SCOPES]).toEqual(["thread", "always"]);
    expect(scopesAsked("thread")).toEqual([["thread"]]);
    expect(scopesAsked("always")).toEqual([["thread", "always"]]);
  });
});
