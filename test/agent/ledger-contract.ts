/** The behaviour every ExecutionLedger shares; run against each store, in Node and in Chromium. */
import { expect, test } from "vitest";
import type { ExecutionLedger, LedgerResult } from "../../src/index.js";
import { abandonedResult } from "../../src/agent/ledger/outcome-answer.js";

const ok = (text: string): LedgerResult => ({ status: "success", content: [{ type: "text", text }] });

/**
 * @param make - A fresh, empty ledger reading the given clock.
 */
export function executionLedgerContract(make: (now: () => number) => ExecutionLedger): void {
  test("a first claim holds the call; a second reads running; after settle every claim reads done", async () => {
    const ledger = make(() => 1000);
    const first = await ledger.claim("k");
    expect(first.status).toBe("claimed");
    if (first.status !== "claimed") return;
    expect(await ledger.claim("k")).toEqual({ status: "running", leaseExpiresAt: first.leaseExpiresAt });
    await ledger.settle("k", first.token, ok("sent"));
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("sent") });
    expect(await ledger.claim("k", { takeOverUnknown: true })).toEqual({ status: "done", result: ok("sent") });
    expect((await ledger.claim("other")).status).toBe("claimed");
  });

  test("of many concurrent claims of one call exactly one wins", async () => {
    const ledger = make(() => 1000);
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => ledger.claim("race")));
    expect(outcomes.filter((o) => o.status === "claimed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "running")).toHaveLength(11);
  });

  test("a lease that runs out without a result is unknown; only takeOverUnknown claims it again", async () => {
    let now = 1000;
    const ledger = make(() => now);
    const first = await ledger.claim("k", { leaseMs: 50 });
    expect(first).toMatchObject({ status: "claimed", leaseExpiresAt: 1050 });
    now = 1049;
    expect((await ledger.claim("k", { takeOverUnknown: true })).status).toBe("running");
    now = 1050;
    expect(await ledger.claim("k")).toEqual({ status: "unknown", claimedAt: 1000 });
    expect(await ledger.claim("k")).toEqual({ status: "unknown", claimedAt: 1000 });
    const again = await ledger.claim("k", { takeOverUnknown: true });
    expect(again.status).toBe("claimed");
    if (again.status !== "claimed" || first.status !== "claimed") return;
    // The old holder is back too late: its settle records nothing.
    await ledger.settle("k", first.token, ok("stale"));
    expect((await ledger.claim("k")).status).toBe("running");
    await ledger.settle("k", again.token, ok("fresh"));
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("fresh") });
  });

  test("release frees a call that did not start; a wrong token releases nothing", async () => {
    const ledger = make(() => 1000);
    const first = await ledger.claim("k");
    if (first.status !== "claimed") throw new Error("expected a claim");
    await ledger.release("k", "not-the-token");
    expect((await ledger.claim("k")).status).toBe("running");
    await ledger.release("k", first.token);
    const second = await ledger.claim("k");
    expect(second.status).toBe("claimed");
    if (second.status !== "claimed") return;
    // A released token cannot settle the new holder's call.
    await ledger.settle("k", first.token, ok("stale"));
    expect((await ledger.claim("k")).status).toBe("running");
    // Release after settle does not forget the result.
    await ledger.settle("k", second.token, ok("done"));
    await ledger.release("k", second.token);
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("done") });
  });

  test("settle is idempotent per token, and a repeat with the same token replaces the result (a retried call)", async () => {
    const ledger = make(() => 1000);
    const c = await ledger.claim("k");
    if (c.status !== "claimed") throw new Error("expected a claim");
    await ledger.settle("k", c.token, ok("first"));
    await ledger.settle("k", c.token, ok("first"));
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("first") });
    await ledger.settle("k", c.token, {
      status: "error",
      content: [{ type: "text", text: "second" }],
      structuredContent: { n: 2 },
    });
    expect(await ledger.claim("k")).toEqual({
      status: "done",
      result: { status: "error", content: [{ type: "text", text: "second" }], structuredContent: { n: 2 } },
    });
  });

  test("the recorded result is a copy: changing what was passed or returned changes nothing stored", async () => {
    const ledger = make(() => 1000);
    const c = await ledger.claim("k");
    if (c.status !== "claimed") throw new Error("expected a claim");
    const result = ok("kept");
    await ledger.settle("k", c.token, result);
    (result.content[0] as { text: string }).text = "changed";
    const read = await ledger.claim("k");
    if (read.status !== "done") throw new Error("expected done");
    (read.result.content[0] as { text: string }).text = "changed again";
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("kept") });
  });

  test("'run it again' of an abandoned call takes it over under a new token: a late result of the call let go records nothing", async () => {
    const ledger = make(() => 1000);
    const first = await ledger.claim("k");
    if (first.status !== "claimed") throw new Error("expected a claim");
    await ledger.settle("k", first.token, abandonedResult({ token: first.token, at: 1000 }, "let go"));
    expect((await ledger.claim("k", { takeOverAbandoned: "another-claim" })).status).toBe("done");
    const again = await ledger.claim("k", { takeOverAbandoned: first.token });
    if (again.status !== "claimed") throw new Error(`expected a take-over, got ${again.status}`);
    expect(again.token).not.toBe(first.token);
    await ledger.settle("k", first.token, ok("late"));
    await ledger.settle("k", again.token, ok("again"));
    await ledger.settle("k", first.token, ok("later still"));
    expect(await ledger.claim("k")).toEqual({ status: "done", result: ok("again") });
  });
}
