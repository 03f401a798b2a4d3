/**
 * The one claim rule and settle rule every ledger and thread store applies (src/agent/ledger/claim-rule.ts).
 */
import { describe, expect, test } from "vitest";
import { decideClaim, decideSettle, releasable, type LedgerRow } from "../../../src/agent/ledger/claim-rule.js";

const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent" }] };

describe("the claim rule", () => {
  test("done beats everything, even a take-over: the recorded result is replayed", () => {
    const row: LedgerRow = { token: "a", claimedAt: 0, leaseExpiresAt: 0, result };
    expect(decideClaim(row, 5, { takeOverUnknown: true })).toEqual({ outcome: { status: "done", result } });
  });

  test("a live lease is running, an expired one unknown, and neither writes", () => {
    expect(decideClaim({ token: "a", claimedAt: 0, leaseExpiresAt: 10 }, 5)).toEqual({
      outcome: { status: "running", leaseExpiresAt: 10 },
    });
    expect(decideClaim({ token: "a", claimedAt: 1, leaseExpiresAt: 4 }, 5)).toEqual({
      outcome: { status: "unknown", claimedAt: 1 },
    });
  });

  test("a fresh claim writes the token, now and the lease", () => {
    expect(decideClaim(undefined, 5, { leaseMs: 10 }, "tok")).toEqual({
      outcome: { status: "claimed", token: "tok", leaseExpiresAt: 15 },
      write: { token: "tok", claimedAt: 5, leaseExpiresAt: 15 },
    });
    const generated = decideClaim(undefined, 5);
    expect(generated.write?.token).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("taking over an unknown claim is later than it, even on the same millisecond", () => {
    const taken = decideClaim({ token: "a", claimedAt: 7, leaseExpiresAt: 4 }, 7, { takeOverUnknown: true }, "b");
    expect(taken.write).toMatchObject({ token: "b", claimedAt: 8 });
    // A live lease is never taken over.
    expect(
      decideClaim({ token: "a", claimedAt: 7, leaseExpiresAt: 99 }, 7, { takeOverUnknown: true }, "b").write,
    ).toBeUndefined();
  });

  test("where the store knows whether the holder runs, that decides instead of the lease", () => {
    const past: LedgerRow = { token: "a", claimedAt: 0, leaseExpiresAt: 1 };
    expect(decideClaim(past, 5, {}, "b", () => true).outcome.status).toBe("running");
    const live: LedgerRow = { token: "a", claimedAt: 0, leaseExpiresAt: 99 };
    expect(decideClaim(live, 5, {}, "b", () => false).outcome.status).toBe("unknown");
  });

  test("a replayed result is a copy: editing it does not change the record", () => {
    const row: LedgerRow = { token: "a", claimedAt: 0, leaseExpiresAt: 0, result };
    const { outcome } = decideClaim(row, 5);
    if (outcome.status !== "done") throw new Error(outcome.status);
    (outcome.result.content[0] as { text: string }).text = "edited";
    expect((row.result!.content[0] as { text: string }).text).toBe("sent");
  });
});

describe("the settle rule", () => {
  const claim: LedgerRow = { token: "a", claimedAt: 3, leaseExpiresAt: 9 };

  test("the holder's token records a copy of the result; the row keeps its claim", () => {
    const input = structuredClone(result);
    const row = decideSettle(claim, "a", input);
    expect(row).toEqual({ token: "a", claimedAt: 3, leaseExpiresAt: 9, result });
    (input.content[0] as { text: string }).text = "edited";
    expect((row!.result!.content[0] as { text: string }).text).toBe("sent");
  });

  test("a token that no longer holds the call, or no row, records nothing", () => {
    expect(decideSettle(claim, "b", result)).toBeUndefined();
    expect(decideSettle(undefined, "a", result)).toBeUndefined();
  });

  test("only the holder's own unsettled claim is releasable", () => {
    expect(releasable(claim, "a")).toBe(true);
    expect(releasable(claim, "b")).toBe(false);
    expect(releasable({ ...claim, result }, "a")).toBe(false);
    expect(releasable(undefined, "a")).toBe(false);
  });
});
