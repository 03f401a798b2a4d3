import { describe, expect, test } from "vitest";
import { GrantLookup } from "../../../src/hooks/approval/grant-lookup.js";
import { signGrant } from "../../../src/grants/signing.js";
import type { Grant } from "../../../src/grants/grant.js";
import { silentLogger } from "../approval-fixtures.js";

const g = (over: Partial<Grant> = {}): Grant =>
  ({ tool: "pay", scope: "always", grantedAt: 1, subjectKey: "to:a", ...over }) as Grant;

describe("GrantLookup", () => {
  test("reads forwardedProps.kaboo_grants once per run, and never across runs", async () => {
    const log = silentLogger();
    const lookup = new GrantLookup(undefined, log);
    const run1 = { forwardedProps: { kaboo_grants: [g()] } };
    const run2 = { forwardedProps: { kaboo_grants: [] as Grant[] } };
    expect(await lookup.covers(run1, { tool: "pay", subjectKey: "to:a" })).toBe(true);
    run1.forwardedProps.kaboo_grants = [];
    expect(await lookup.covers(run1, { tool: "pay", subjectKey: "to:a" })).toBe(true);
    expect(await lookup.covers(run2, { tool: "pay", subjectKey: "to:a" })).toBe(false);
  });
  test("no props, no grants key, or a non-array value: nothing is covered", async () => {
    const log = silentLogger();
    const lookup = new GrantLookup(undefined, log);
    for (const state of [
      {},
      { forwardedProps: {} },
      { forwardedProps: { kaboo_grants: { tool: "pay" } } },
      { forwardedProps: [] },
    ]) {
      expect(await lookup.covers(state, { tool: "pay", subjectKey: "to:a" })).toBe(false);
    }
  });
  test("with a secret, unsigned and forged grants are reported and ignored", async () => {
    const log = silentLogger();
    const lookup = new GrantLookup("k", log);
    const state = {
      forwardedProps: {
        kaboo_grants: [
          g(),
          await signGrant(g({ subjectKey: "to:b" }), "other"),
          await signGrant(g({ subjectKey: "to:c" }), "k"),
        ],
      },
    };
    expect(await lookup.covers(state, { tool: "pay", subjectKey: "to:a" })).toBe(false);
    expect(await lookup.covers(state, { tool: "pay", subjectKey: "to:b" })).toBe(false);
    expect(await lookup.covers(state, { tool: "pay", subjectKey: "to:c" })).toBe(true);
    expect(log.lines.filter((l) => l.message.includes("unverified"))).toHaveLength(2);
  });
});
