/**
 * Claims in a Deno KV thread ledger name the run that made them: a claim without a result made by
 * the run whose lease the claiming run took over reads `unknown` at once (and is written so for every
 * later claim), while a live claim of any other run, or made outside a run, reads `running`.
 */
import { describe, expect, test } from "vitest";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { fakeKv } from "./fake-kv.js";

describe("Deno KV ledger: claims of a run that was taken over", () => {
  test("the dead run's claim reads unknown at once; a live run's and an outside claim read running", async () => {
    const store = new DenoKvThreadStore(fakeKv());
    const dead = store.ledger("t", { token: "lease-a" });
    const live = store.ledger("t", { token: "lease-b" });
    expect((await dead.claim("call-1")).status).toBe("claimed");
    expect((await live.claim("call-2")).status).toBe("claimed");
    expect((await store.ledger("t").claim("call-3")).status).toBe("claimed");
    const next = store.ledger("t", { token: "lease-c", tookOver: "lease-a" });
    expect((await next.claim("call-1")).status).toBe("unknown");
    expect((await next.claim("call-2")).status).toBe("running");
    expect((await next.claim("call-3")).status).toBe("running");
    // Written cut off: a later run that took over no one reads it unknown too, and may take it over.
    const later = store.ledger("t", { token: "lease-d" });
    expect((await later.claim("call-1")).status).toBe("unknown");
    const taken = await later.claim("call-1", { takeOverUnknown: true });
    expect(taken.status).toBe("claimed");
    // Taken over, the call is the later run's: the run after it that took over lease-a reads it running.
    expect((await store.ledger("t", { token: "lease-e", tookOver: "lease-a" }).claim("call-1")).status).toBe("running");
  });

  test("the dead run's late result is recorded (its claim token still holds the call), and replayed", async () => {
    const store = new DenoKvThreadStore(fakeKv());
    const dead = store.ledger("t", { token: "lease-a" });
    const claimed = await dead.claim("call-1");
    if (claimed.status !== "claimed") throw new Error(claimed.status);
    const next = store.ledger("t", { token: "lease-b", tookOver: "lease-a" });
    expect((await next.claim("call-1")).status).toBe("unknown");
    const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent 5 to alice" }] };
    await dead.settle("call-1", claimed.token, result);
    expect(await next.claim("call-1", { takeOverUnknown: true })).toEqual({ status: "done", result });
  });
});
