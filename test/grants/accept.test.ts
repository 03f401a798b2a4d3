import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import {
  acceptGrants,
  filterVerified,
  findGrant,
  findVerifiedGrant,
  indexGrants,
  signGrant,
} from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";

const SECRET = "a server secret";
const grant: Grant = { tool: "pay", subjectKey: "acct:1", scope: "thread", threadId: "t1", grantedAt: 1 };

describe("acceptGrants", () => {
  test("without a secret: validation only", async () => {
    const { grants, rejected } = await acceptGrants([grant, { tool: "pay" }]);
    expect(grants).toEqual([grant]);
    expect(rejected).toHaveLength(1);
    expect(await acceptGrants(undefined)).toEqual({ grants: [], rejected: [], ignored: 0 });
  });

  test("with a secret: malformed, unsigned, forged and altered grants are rejected with reasons; the gate never sees them", async () => {
    const signed = await signGrant(grant, SECRET);
    const forged = await signGrant({ ...grant, subjectKey: "acct:2" }, "guess");
    const altered = { ...signed, threadId: "t2" };
    const wire = JSON.parse(JSON.stringify([signed, grant, forged, altered, { scope: "always" }]));
    const { grants, rejected } = await acceptGrants(wire, { secret: SECRET });
    expect(grants).toEqual([signed]);
    expect(rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^tool: /),
      "the grant has no signature",
      expect.stringMatching(/does not match/),
      expect.stringMatching(/does not match/),
    ]);
    expect(findGrant(grants, { tool: "pay", subjectKey: "acct:2", threadId: "t1", now: 2 })).toBeUndefined();
    expect(findGrant(grants, { tool: "pay", subjectKey: "acct:1", threadId: "t2", now: 2 })).toBeUndefined();
    expect(findGrant(grants, { tool: "pay", subjectKey: "acct:1", threadId: "t1", now: 2 })).toEqual(signed);
  });

  test("an empty secret is a caller error", async () => {
    await expect(acceptGrants([grant], { secret: "" })).rejects.toBeInstanceOf(UserError);
  });
});

describe("findVerifiedGrant", () => {
  test("skips a forged candidate, reports it, and returns the signed one behind it", async () => {
    const forged = await signGrant({ ...grant, scope: "always", threadId: undefined }, "guess");
    const unsigned: Grant = { ...grant };
    const signed = await signGrant(grant, SECRET);
    const other = await signGrant({ ...grant, tool: "other" }, "guess");
    const query = { tool: "pay", subjectKey: "acct:1", threadId: "t1", now: 2 };
    const { grant: found, rejected } = await findVerifiedGrant([other, forged, unsigned, signed], query, SECRET);
    expect(found).toBe(signed);
    expect(rejected.map((r) => [r.grant, r.code])).toEqual([
      [forged, "mismatch"],
      [unsigned, "unsigned"],
    ]);
    expect(await findVerifiedGrant([forged, unsigned], query, SECRET)).toMatchObject({ grant: undefined });
    await expect(findVerifiedGrant([], query, "")).rejects.toBeInstanceOf(UserError);
  });

  test("property: same answer as findGrant over filterVerified's accepted grants", async () => {
    const arb = fc.array(
      fc.record({
        subjectKey: fc.constantFrom("a", "b", "__proto__"),
        threadId: fc.constantFrom("t1", "t2"),
        always: fc.boolean(),
        signing: fc.constantFrom("good", "bad", "none"),
        expiresAt: fc.option(fc.integer({ min: 2, max: 20 }), { nil: undefined }),
      }),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(
        arb,
        fc.constantFrom("a", "b", "__proto__"),
        fc.integer({ min: 0, max: 20 }),
        async (specs, subjectKey, now) => {
          const grants = await Promise.all(
            specs.map(async (s) => {
              const g: Grant = {
                tool: "pay",
                subjectKey: s.subjectKey,
                scope: s.always ? "always" : "thread",
                ...(s.always ? {} : { threadId: s.threadId }),
                grantedAt: 1,
                ...(s.expiresAt === undefined ? {} : { expiresAt: s.expiresAt }),
              };
              return s.signing === "none" ? g : signGrant(g, s.signing === "good" ? SECRET : "guess");
            }),
          );
          const query = { tool: "pay", subjectKey, threadId: "t1", now };
          const expected = findGrant((await filterVerified(grants, SECRET)).accepted, query);
          expect((await findVerifiedGrant(grants, query, SECRET)).grant).toBe(expected);
          expect((await findVerifiedGrant(indexGrants(grants), query, SECRET)).grant).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});
