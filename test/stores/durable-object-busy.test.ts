/**
 * DurableObjectThreadStore where the platform reports contention: an error Workers mark
 * `retryable` is retried with bounded backoff for reads and for the holder's own settle/release;
 * an `overloaded` object, or a write that may have landed, ends the request with STORE_BUSY at once.
 */
import { describe, expect, test } from "vitest";
import { DurableObjectThreadStore, StoreBusyError } from "../../src/stores/durable-object.js";

function namespace(answer: (op: { op: string }, attempt: number) => Response | Error) {
  const calls: string[] = [];
  return {
    calls,
    ns: {
      idFromName: (name: string) => name,
      get: () => ({
        async fetch(_: string, init?: RequestInit) {
          const op = JSON.parse(String(init?.body)) as { op: string };
          calls.push(op.op);
          const a = answer(op, calls.filter((c) => c === op.op).length);
          if (a instanceof Error) throw a;
          return a;
        },
      }),
    },
  };
}
const transient = () => Object.assign(new Error("Network connection lost."), { retryable: true });
const overloaded = () =>
  Object.assign(new Error("Durable Object is overloaded."), { retryable: true, overloaded: true });

describe("a Durable Object that reports contention", () => {
  test("a transient error on a read is retried until it succeeds", async () => {
    const { ns, calls } = namespace((_, n) => (n <= 3 ? transient() : Response.json({ body: null })));
    const store = new DurableObjectThreadStore(ns);
    expect((await store.load("t")).version).toBe(0);
    expect(calls).toEqual(["load", "load", "load", "load"]);
  });

  test("past the bound, STORE_BUSY (retryable)", async () => {
    const { ns } = namespace(() => transient());
    const error = await new DurableObjectThreadStore(ns, { busyTimeoutMs: 50 }).load("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(error).toMatchObject({ code: "STORE_BUSY", retryable: true });
  });

  test("an overloaded object, and a compare-and-set that may have landed, are not sent again", async () => {
    const over = namespace(() => overloaded());
    await expect(new DurableObjectThreadStore(over.ns).load("t")).rejects.toBeInstanceOf(StoreBusyError);
    expect(over.calls).toEqual(["load"]);
    const cas = namespace(() => transient());
    const store = new DurableObjectThreadStore(cas.ns);
    const record = {
      version: 0,
      session: null,
      messages: [],
      state: {},
      answered: {},
      owner: null,
      lease: null,
      updatedAt: 0,
    };
    await expect(store.compareAndSet("t", 0, record as never)).rejects.toBeInstanceOf(StoreBusyError);
    await expect(store.ledger("t").claim("k")).rejects.toBeInstanceOf(StoreBusyError);
    expect(cas.calls).toEqual(["cas", "claim"]);
  });
});
