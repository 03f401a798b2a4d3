import { describe, expect, test } from "vitest";
import type { CallName } from "../../src/agent/ledger/memory-ledger.js";
import { MemoryExecutionLedger, executionKey, type ClaimOutcome } from "../../src/index.js";
import { callText } from "../../src/agent/ledger/ledger.js";
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

  test("past maxEntries it forgets the oldest settled calls in one pass, down to 15/16 of it: never more than maxEntries kept", () => {
    // Guards the bound and the order (a pass per settle walked the map from its start each time: 1.9 -> 8-13 us a call).
    const ledger = new MemoryExecutionLedger({ maxEntries: 64 });
    const live = ledger.claimNow("live");
    const settle = (k: string) => {
      const c = ledger.claimNow(k);
      if (c.status !== "claimed") throw new Error(`expected a claim of ${k}`);
      ledger.settleNow(k, c.token, { status: "success", content: [] });
    };
    for (let i = 0; i < 63; i++) settle(`k${i}`);
    // 64 records (63 settled and the live claim): nothing forgotten yet.
    expect(ledger.claimNow("k0").status).toBe("done");
    settle("k63");
    // 65 > 64: the oldest settled calls go until 60 records are left (the live claim stays).
    const kept = Array.from({ length: 64 }, (_, i) => ledger.claimNow(`k${i}`).status === "done");
    expect(kept.indexOf(true)).toBe(5);
    expect(kept.slice(5).every(Boolean)).toBe(true);
    expect(live.status).toBe("claimed");
    expect(ledger.claimNow("live").status).toBe("running");
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

describe("a call's name (as the runner gives it) and its execution key are one record", () => {
  const parts = (id: string, input: unknown = { to: "bob" }) => ({ threadId: "th", toolUseId: id, input });
  const key = (id: string, input?: unknown) => executionKey(parts(id, input));
  /** The call as the runner names it; counts how often the ledger needed its key. */
  const hashes: string[] = [];
  const name = (id: string, input?: unknown): CallName => ({
    text: callText(parts(id, input)),
    get key() {
      hashes.push(id);
      return key(id, input);
    },
  });
  const done = { status: "success" as const, content: [{ type: "text" as const, text: "ok" }] };
  const claimed = (o: ClaimOutcome) => {
    if (o.status !== "claimed") throw new Error(`expected a claim, got ${o.status}`);
    return o.token;
  };

  test("claimed by name, the key finds it running, then done; claimed by key, the name finds it done", async () => {
    const ledger = new MemoryExecutionLedger();
    const a = claimed(ledger.claimNow(name("a")));
    expect((await ledger.claim(key("a"))).status).toBe("running");
    expect(ledger.claimNow(name("a")).status).toBe("running");
    ledger.settleNow(name("a"), a, done);
    expect(await ledger.claim(key("a"))).toEqual({ status: "done", result: done });
    const b = claimed(await ledger.claim(key("b")));
    ledger.settleNow(name("b"), b, done);
    expect(ledger.claimNow(name("b"))).toEqual({ status: "done", result: done });
  });

  test("released by key, a call claimed by name is free again (and the other way round)", async () => {
    const ledger = new MemoryExecutionLedger();
    const a = claimed(ledger.claimNow(name("a")));
    await ledger.release(key("a"), a);
    const again = claimed(ledger.claimNow(name("a")));
    await ledger.release(name("a"), again);
    expect((await ledger.claim(key("a"))).status).toBe("claimed");
  });

  test("a ledger asked by name only never needs a key, except for long arguments", () => {
    const ledger = new MemoryExecutionLedger();
    hashes.length = 0;
    const a = claimed(ledger.claimNow(name("a")));
    ledger.settleNow(name("a"), a, done);
    expect(ledger.claimNow(name("a")).status).toBe("done");
    expect(hashes).toEqual([]);
    const long = { note: "x".repeat(1000) };
    const l = claimed(ledger.claimNow(name("l", long)));
    ledger.settleNow(name("l", long), l, done);
    expect(ledger.claimNow(name("l", long))).toEqual({ status: "done", result: done });
    expect(hashes).toEqual(["l", "l", "l"]);
  });

  test("released by name while calls are kept by text (an interrupted call), it is free again, by name and by key", async () => {
    const ledger = new MemoryExecutionLedger();
    hashes.length = 0;
    const a = claimed(ledger.claimNow(name("a")));
    await ledger.release(name("a"), a);
    expect(hashes).toEqual([]);
    const again = claimed(ledger.claimNow(name("a")));
    expect((await ledger.claim(key("a"))).status).toBe("running");
    ledger.settleNow(name("a"), again, done);
    expect(await ledger.claim(key("a"))).toEqual({ status: "done", result: done });
  });

  test("a text of 256 characters is kept as text, one of 257 under its key; each is one record with its key", async () => {
    const base = callText(parts("b", { note: "" })).length;
    const at = (n: number) => ({ note: "x".repeat(n - base) });
    expect(callText(parts("b", at(256)))).toHaveLength(256);
    const ledger = new MemoryExecutionLedger();
    hashes.length = 0;
    const b = claimed(ledger.claimNow(name("b", at(256))));
    expect(hashes).toEqual([]);
    const c = claimed(ledger.claimNow(name("c", at(257))));
    expect(hashes).toEqual(["c"]);
    ledger.settleNow(name("b", at(256)), b, done);
    ledger.settleNow(name("c", at(257)), c, done);
    expect(await ledger.claim(key("b", at(256)))).toEqual({ status: "done", result: done });
    expect(await ledger.claim(key("c", at(257)))).toEqual({ status: "done", result: done });
  });

  test("a long call is one record with its key before and after a look-up by key", async () => {
    const ledger = new MemoryExecutionLedger();
    const long = { note: "x".repeat(1000) };
    const a = claimed(ledger.claimNow(name("a", long)));
    ledger.settleNow(name("a", long), a, done);
    expect(await ledger.claim(key("a", long))).toEqual({ status: "done", result: done });
    expect(ledger.claimNow(name("a", long))).toEqual({ status: "done", result: done });
  });

  test("the oldest settled calls are still dropped first after the first look-up by key", async () => {
    const ledger = new MemoryExecutionLedger({ maxEntries: 2 });
    for (const id of ["a", "b"]) ledger.settleNow(name(id), claimed(ledger.claimNow(name(id))), done);
    // The first key puts the calls kept by name under their keys, in their order: "a" is still the oldest.
    const c = claimed(await ledger.claim(key("c")));
    ledger.settleNow(name("c"), c, done);
    expect((await ledger.claim(key("b"))).status).toBe("done");
    expect(ledger.claimNow(name("c")).status).toBe("done");
    expect(ledger.claimNow(name("a")).status).toBe("claimed");
  });
});
