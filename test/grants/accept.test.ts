import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import { acceptGrants, findGrant, signGrant } from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";

const SECRET = "a server secret";
const grant: Grant = { tool: "pay", subjectKey: "acct:1", scope: "thread", threadId: "t1", grantedAt: 1 };

describe("acceptGrants", () => {
  test("without a secret: validation only", async () => {
    const { grants, rejected } = await acceptGrants([grant, { tool: "pay" }]);
    expect(grants).toEqual([grant]);
    expect(rejected).toHaveLength(1);
    expect(await acceptGrants(undefined)).toEqual({ grants: [], rejected: [] });
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
