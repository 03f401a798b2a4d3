import { describe, expect, test, vi } from "vitest";
import {
  acceptGrants,
  DEFAULT_MAX_GRANTS,
  grantRefusalSummary,
  parseGrants,
  signGrant,
} from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";
import { GrantLookup } from "../../src/hooks/approval/grant-lookup.js";
import { runContext } from "../../src/agent/run-context.js";

const grant = (i: number): Grant => ({ tool: "pay", subjectKey: `acct:${i}`, scope: "always", grantedAt: 1 });

describe("a grant list costs a bounded amount, whatever its length", () => {
  test("only the first 256 entries are read; the rest are counted, not parsed", () => {
    const list = Array.from({ length: 1000 }, (_, i) => grant(i));
    const { grants, rejected, ignored } = parseGrants(list);
    expect(DEFAULT_MAX_GRANTS).toBe(256);
    expect(grants).toHaveLength(256);
    expect(grants.at(-1)?.subjectKey).toBe("acct:255");
    expect(rejected).toEqual([]);
    expect(ignored).toBe(744);
    expect(parseGrants(list, { maxGrants: 10 })).toMatchObject({ ignored: 990 });
  });

  test("entries that cannot be grants are refused by the shape check, with a short reason, never by the schema", () => {
    const { grants, rejected } = parseGrants([{}, [], 7, null, { tool: "pay", scope: "x", grantedAt: 1 }, grant(1)]);
    expect(grants).toEqual([grant(1)]);
    expect(rejected.map((r) => r.reason)).toEqual([
      "tool: must be a string",
      "a grant must be an object",
      "a grant must be an object",
      "a grant must be an object",
      'scope: must be "thread" or "always"',
    ]);
  });

  test("acceptGrants with a secret: verifies only what it read, and says how many it did not", async () => {
    const signed = await signGrant(grant(0), "s");
    const list = [signed, ...Array.from({ length: 100_000 }, () => ({}))];
    const t = performance.now();
    const { grants, rejected, ignored } = await acceptGrants(list, { secret: "s" });
    expect(performance.now() - t).toBeLessThan(5_000); // a sanity bound only; speed is measured in bench/
    expect(grants).toEqual([signed]);
    expect(rejected).toHaveLength(255);
    expect(ignored).toBe(100_001 - 256);
  });

  test("one summary line for a whole list", () => {
    const summary = grantRefusalSummary(
      [{ reason: "a" }, { reason: "a" }, { reason: "b" }, { reason: "c" }, { reason: "d" }, { reason: "e" }],
      10,
    );
    expect(summary).toBe("6 grants refused (2× a; 1× b; 1× c; 2 other reasons), 10 not read (over 256)");
    expect(grantRefusalSummary([], 0)).toBeUndefined();
  });

  test("the gate's lookup logs one warning for 100,000 malformed grants, not one each", async () => {
    const log = { warn: vi.fn(), error: vi.fn() };
    const lookup = new GrantLookup(undefined, log);
    const state = {};
    runContext.forwardedProps.set(state, { kaboo_grants: [...Array.from({ length: 100_000 }, () => ({})), grant(1)] });
    expect(await lookup.covers(state, { tool: "pay", subjectKey: "acct:1", now: 2 })).toBe(false);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]?.[1]).toMatchObject({
      summary: expect.stringMatching(/^256 grants refused .*not read/),
    });
  });
});
