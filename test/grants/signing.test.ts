import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import {
  canonicalGrant,
  checkGrantSignature,
  filterVerified,
  parseGrants,
  signGrant,
  verifyGrant,
} from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";

const SECRET = "server-side secret of 32 chars!!";
const base: Grant = {
  tool: "send_money",
  subjectKey: "acct:42",
  subjectLabel: "Account 42",
  scope: "thread",
  threadId: "t1",
  grantedAt: 1_700_000_000_000,
  expiresAt: 1_700_000_600_000,
};

describe("canonicalGrant", () => {
  test("is versioned, fixed-order, JSON-escaped, null for absent, and ignores the signature", () => {
    expect(canonicalGrant(base)).toBe(
      'v1\n"send_money"\n"acct:42"\n"Account 42"\n"thread"\n"t1"\n1700000000000\n1700000600000',
    );
    expect(canonicalGrant({ tool: "a", scope: "always", grantedAt: 0 })).toBe(
      'v1\n"a"\nnull\nnull\n"always"\nnull\n0\nnull',
    );
    expect(canonicalGrant({ ...base, signature: "v1.x" })).toBe(canonicalGrant(base));
  });

  test("a newline inside a value cannot shift fields", () => {
    const a: Grant = { tool: 'a"\n"b', scope: "always", grantedAt: 0 };
    const b: Grant = { tool: "a", subjectKey: "b", scope: "always", grantedAt: 0 };
    expect(canonicalGrant(a)).not.toBe(canonicalGrant(b));
    expect(canonicalGrant(a).split("\n")).toHaveLength(8);
  });
});

describe("signGrant / verifyGrant", () => {
  test("a signed grant verifies with its secret, as text or CryptoKey", async () => {
    const signed = await signGrant(base, SECRET);
    expect(signed.signature).toMatch(/^v1\.[A-Za-z0-9_-]{43}$/);
    expect({ ...signed, signature: undefined }).toEqual({ ...base, signature: undefined });
    expect(await verifyGrant(signed, SECRET)).toBe(true);
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(SECRET),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    expect(await verifyGrant(signed, key)).toBe(true);
    expect((await signGrant(base, key)).signature).toBe(signed.signature);
  });

  test("survives a JSON round trip (as it travels in forwardedProps)", async () => {
    const signed = await signGrant(base, SECRET);
    const { grants } = parseGrants(JSON.parse(JSON.stringify([signed])));
    expect(await verifyGrant(grants[0] as Grant, SECRET)).toBe(true);
  });

  test("unsigned, malformed, other-version, wrong-secret and altered grants fail", async () => {
    const signed = await signGrant(base, SECRET);
    expect(await checkGrantSignature(base, SECRET)).toBe("unsigned");
    expect(await checkGrantSignature({ ...base, signature: "" }, SECRET)).toBe("unsigned");
    expect(await checkGrantSignature({ ...base, signature: "not a signature" }, SECRET)).toBe("malformed");
    expect(await checkGrantSignature({ ...base, signature: "v1.!!!" }, SECRET)).toBe("malformed");
    expect(await checkGrantSignature({ ...base, signature: "v1.AAAA" }, SECRET)).toBe("malformed");
    expect(await checkGrantSignature({ ...base, signature: `v2.${signed.signature?.slice(3)}` }, SECRET)).toBe(
      "unsupported-version",
    );
    expect(await checkGrantSignature(signed, "another secret")).toBe("mismatch");
    const alterations: Partial<Grant>[] = [
      { tool: "send_money2" },
      { subjectKey: "acct:43" },
      { subjectKey: undefined },
      { subjectLabel: "Account 43" },
      { scope: "always", threadId: undefined },
      { threadId: "t2" },
      { grantedAt: base.grantedAt + 1 },
      { expiresAt: undefined },
      { expiresAt: (base.expiresAt as number) + 1 },
    ];
    for (const change of alterations) {
      expect(await checkGrantSignature({ ...signed, ...change }, SECRET)).toBe("mismatch");
    }
    // One flipped character of the MAC.
    const sig = signed.signature as string;
    const flipped = sig.slice(0, -2) + (sig.at(-2) === "A" ? "B" : "A") + sig.at(-1);
    expect(await verifyGrant({ ...signed, signature: flipped }, SECRET)).toBe(false);
  });

  test("an unusable secret is a caller error, not a rejected grant", async () => {
    await expect(signGrant(base, "")).rejects.toBeInstanceOf(UserError);
    await expect(verifyGrant({ ...base, signature: `v1.${"A".repeat(43)}` }, "")).rejects.toBeInstanceOf(UserError);
    const verifyOnly = await crypto.subtle.importKey(
      "raw",
      new Uint8Array(32),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    await expect(signGrant(base, verifyOnly)).rejects.toBeInstanceOf(UserError);
  });

  test("property: any change to a signed grant's covered fields breaks the signature", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ tool: fc.string({ minLength: 1 }), subjectKey: fc.string(), other: fc.string({ minLength: 1 }) }),
        async ({ tool, subjectKey, other }) => {
          const grant: Grant = { tool, subjectKey, scope: "always", grantedAt: 5 };
          const signed = await signGrant(grant, SECRET);
          expect(await verifyGrant(signed, SECRET)).toBe(true);
          if (other !== tool) expect(await verifyGrant({ ...signed, tool: other }, SECRET)).toBe(false);
          if (other !== subjectKey) expect(await verifyGrant({ ...signed, subjectKey: other }, SECRET)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("filterVerified", () => {
  test("accepts only verified grants, in order, and gives a reason for each rejection", async () => {
    const good1 = await signGrant(base, SECRET);
    const good2 = await signGrant({ tool: "search", scope: "always", grantedAt: 1 }, SECRET);
    const forged = await signGrant({ ...base, tool: "delete_all" }, "attacker's secret");
    const altered = { ...good1, subjectKey: "acct:666" };
    const unsigned: Grant = { tool: "pay", scope: "always", grantedAt: 1 };
    const { accepted, rejected } = await filterVerified([forged, good1, altered, unsigned, good2], SECRET);
    expect(accepted).toEqual([good1, good2]);
    expect(rejected.map((r) => [r.grant, r.code])).toEqual([
      [forged, "mismatch"],
      [altered, "mismatch"],
      [unsigned, "unsigned"],
    ]);
    for (const r of rejected) expect(r.reason).toMatch(/signature/);
    expect(await filterVerified([], SECRET)).toEqual({ accepted: [], rejected: [] });
    await expect(filterVerified([], "")).rejects.toBeInstanceOf(UserError);
    await expect(checkGrantSignature(unsigned, "")).rejects.toBeInstanceOf(UserError);
  });
});
