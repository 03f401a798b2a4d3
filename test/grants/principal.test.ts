/** Grants bound to a person: signed with their principal, stored and looked up per principal. */
import { describe, expect, test } from "vitest";
import { grantId, type Grant } from "../../src/grants/grant.js";
import { findGrant } from "../../src/grants/find.js";
import { canonicalGrant, checkGrantSignature, signGrant, verifyGrant } from "../../src/grants/signing.js";
import { MemoryGrantStore } from "../../src/grants/store.js";

const SECRET = "principal-secret";
const base: Grant = { tool: "transfer", subjectKey: "to:bob", scope: "always", grantedAt: 1 };

describe("a grant with a principal", () => {
  test("is signed in the v2 form, which covers the principal", async () => {
    expect(canonicalGrant({ ...base, principal: "ann" })).toBe(`${canonicalGrant(base).replace(/^v1/, "v2")}\n"ann"`);
    const signed = await signGrant({ ...base, principal: "ann" }, SECRET);
    expect(signed.signature).toMatch(/^v2\./);
    expect(await verifyGrant(signed, SECRET)).toBe(true);
    expect(await verifyGrant({ ...signed, principal: "bob" }, SECRET)).toBe(false);
  });

  test("a principal added to a grant signed without one fails verification", async () => {
    const v1 = await signGrant(base, SECRET);
    expect(v1.signature).toMatch(/^v1\./);
    expect(await checkGrantSignature({ ...v1, principal: "ann" }, SECRET)).not.toBeUndefined();
    const { principal: _, ...stripped } = await signGrant({ ...base, principal: "ann" }, SECRET);
    expect(await verifyGrant(stripped, SECRET)).toBe(false);
  });

  test("matches only a query of the same principal", () => {
    const g = { ...base, principal: "ann" };
    expect(findGrant([g], { tool: "transfer", subjectKey: "to:bob", principal: "ann" })).toBe(g);
    expect(findGrant([g], { tool: "transfer", subjectKey: "to:bob", principal: "bob" })).toBeUndefined();
    expect(findGrant([g], { tool: "transfer", subjectKey: "to:bob" })).toBeUndefined();
    expect(findGrant([base], { tool: "transfer", subjectKey: "to:bob", principal: "ann" })).toBeUndefined();
  });

  test("two people's grants for the same thing are two grants in a store, each handed out to its person", async () => {
    expect(grantId({ ...base, principal: "ann" })).not.toBe(grantId({ ...base, principal: "bob" }));
    expect(grantId(base)).toBe(JSON.stringify(["always", null, "transfer", "to:bob"]));
    const store = new MemoryGrantStore();
    await store.grant({ ...base, principal: "ann" });
    await store.grant({ ...base, principal: "bob", subjectKey: "to:carl" });
    await store.grant({ ...base, subjectKey: "to:dan" });
    expect((await store.grantsFor("t", { principal: "ann" })).map((g) => g.subjectKey)).toEqual(["to:bob"]);
    expect((await store.grantsFor("t", { principal: "bob" })).map((g) => g.subjectKey)).toEqual(["to:carl"]);
    expect((await store.grantsFor("t")).map((g) => g.subjectKey)).toEqual(["to:dan"]);
  });
});
