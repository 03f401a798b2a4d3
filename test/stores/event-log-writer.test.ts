/**
 * A run's event log has one writer at a time: the run that holds the thread. A run again that took
 * the thread over from a run whose hold ran out writes on from the events it read, even when that run
 * (frozen, not dead) wrote a late batch after the read, and from then on that run's writes change
 * nothing: they would have put its events under the run again's indexes, or cut its log short.
 */
import { describe, expect, test } from "vitest";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { MemoryThreadStore } from "../../src/stores/memory.js";
import type { ThreadStore } from "../../src/stores/thread-store.js";
import { fakeKv } from "./fake-kv.js";

const stores: [string, () => ThreadStore][] = [
  ["memory", () => new MemoryThreadStore()],
  ["Deno KV", () => new DenoKvThreadStore(fakeKv())],
];
const ev = (who: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "CUSTOM", name: who, value: i }));
const A = { token: "lease-a" };
const B = { token: "lease-b", tookOver: "lease-a" };

describe.each(stores)("the event log's writer (%s)", (_, make) => {
  test("the run again writes on from what it read; the frozen run's late writes change nothing", async () => {
    const store = make();
    await store.appendEvents!("t", "r", 0, ev("a", 3), false, A);
    const read = await store.readEvents!("t", "r", -1);
    expect(read?.events).toHaveLength(3);
    // The frozen run wakes and writes the batch it had before the run again's first write.
    await store.appendEvents!("t", "r", 3, ev("a-late", 2), false, A);
    await store.appendEvents!("t", "r", 3, ev("b", 2), false, B);
    // Its next writes, at any index, change nothing; its end does not end the log.
    await store.appendEvents!("t", "r", 5, ev("a-later", 2), true, A);
    await store.appendEvents!("t", "r", 3, ev("a-later", 2), true, A);
    await store.appendEvents!("t", "r", 5, ev("b", 1), true, B);
    const log = await store.readEvents!("t", "r", -1);
    expect(log?.events.map((e) => (e as { name: string }).name)).toEqual(["a", "a", "a", "b", "b", "b"]);
    expect(log?.ended).toBe(true);
  });

  test("a writer that took over no one, or another run's, is not this log's writer", async () => {
    const store = make();
    await store.appendEvents!("t", "r", 0, ev("a", 2), false, A);
    await store.appendEvents!("t", "r", 2, ev("x", 1), false, { token: "lease-x" });
    await store.appendEvents!("t", "r", 2, ev("y", 1), false, { token: "lease-y", tookOver: "lease-z" });
    // Without a writer (a host's own append, the alarm's last word): the order of indexes alone decides.
    await store.appendEvents!("t", "r", 2, ev("host", 1), true);
    const log = await store.readEvents!("t", "r", -1);
    expect(log?.events.map((e) => (e as { name: string }).name)).toEqual(["a", "a", "host"]);
  });
});
