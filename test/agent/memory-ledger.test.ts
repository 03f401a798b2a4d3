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

test("a settled result is the record's own copy: later edits in place and __proto__ keys do not reach it", async () => {
  const ledger = new MemoryExecutionLedger();
  const claim = await ledger.claim("k");
  if (claim.status !== "claimed") throw new Error("expected a claim");
  const structured = JSON.parse('{"__proto__":{"polluted":true},"n":1}');
  const result = {
    status: "success" as const,
    content: [{ type: "text" as const, text: "sent" }],
    structuredContent: structured,
  };
  await ledger.settle("k", claim.token, result);
  result.content[0]!.text = "edited";
  structured.n = 2;
  const done = await ledger.claim("k");
  expect(done).toEqual({
    status: "done",
    result: {
      status: "success",
      content: [{ type: "text", text: "sent" }],
      structuredContent: JSON.parse('{"__proto__":{"polluted":true},"n":1}'),
    },
  });
  if (done.status !== "done") throw new Error("expected done");
  expect(Object.getPrototypeOf(done.result.structuredContent)).toBe(Object.prototype);
  expect(Object.hasOwn(done.result.structuredContent as object, "__proto__")).toBe(true);
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
