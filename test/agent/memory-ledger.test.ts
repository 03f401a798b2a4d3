import { describe, expect, test } from "vitest";
import { MemoryExecutionLedger, executionKey } from "../../src/index.js";
import { executionLedgerContract } from "./ledger-contract.js";

describe("MemoryExecutionLedger", () => {
  executionLedgerContract((now) => new MemoryExecutionLedger({ now }));

  test("keeps at most maxEntries settled calls, dropping the oldest; live claims are never dropped", async () => {
    const ledger = new MemoryExecutionLedger({ maxEntries: 2 });
    const live = await ledger.claim("live");
    for (const k of ["a", "b", "c"]) {
      const c = await ledger.claim(k);
      if (c.status === "claimed") await ledger.settle(k, c.token, { status: "success", content: [] });
    }
    expect((await ledger.claim("a")).status).toBe("claimed");
    expect((await ledger.claim("c")).status).toBe("done");
    expect(live.status).toBe("claimed");
    expect((await ledger.claim("live")).status).toBe("running");
  });
});

describe("executionKey", () => {
  test("is stable for the same thread, call and arguments whatever the key order", async () => {
    const a = await executionKey({ threadId: "t", toolUseId: "c1", input: { to: "bob", cents: 5 } });
    expect(a).toMatch(/^kw1-[0-9a-f]{64}$/);
    expect(await executionKey({ threadId: "t", toolUseId: "c1", input: { cents: 5, to: "bob" } })).toBe(a);
  });

  test("differs when the thread, the call id or any argument differs", async () => {
    const base = { threadId: "t", toolUseId: "c1", input: { to: "bob", cents: 5 } };
    const keys = await Promise.all([
      executionKey(base),
      executionKey({ ...base, threadId: "t2" }),
      executionKey({ ...base, toolUseId: "c2" }),
      executionKey({ ...base, input: { to: "bob", cents: 6 } }),
      executionKey({ ...base, input: { to: "bob" } }),
      // No separator games: the parts are a JSON array, not a joined string.
      executionKey({ threadId: "t:c1", toolUseId: "", input: base.input }),
    ]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
