/**
 * Texts past the 2 MB a Durable Object's SQLite takes in one value, in workerd: a thread record (a
 * transcript holding a few large messages or tool results) is written, read back unchanged
 * (multi-byte and astral characters across the cuts included), shrinks back, and a stale version
 * still loses; a call's recorded result and a logged event of that size are kept whole too.
 * Before, each write failed with SQLITE_TOOBIG: a run that had called a tool could not save what
 * ran, its result was not settled, and a client reattaching lost the run's last snapshot.
 */
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ThreadData, ThreadRecord } from "../../src/stores/thread-store.js";
import { bundleEntry } from "./bundle.js";

let mf: Miniflare;
beforeAll(async () => {
  const script = await bundleEntry("big-thread-entry-worker.ts");
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    durableObjects: { THREAD: { className: "KabooThread", useSQLite: true } },
  });
  await mf.ready;
}, 60_000);
afterAll(() => mf?.dispose());

const record = (text: string): ThreadData => ({
  owner: "ann",
  session: null,
  messages: [{ id: "m1", role: "user", content: text }],
  state: {},
  answered: {},
  lease: null,
  updatedAt: 1,
});

async function cas(thread: string, expected: number, data: ThreadData) {
  const res = await mf.dispatchFetch(`http://localhost/cas?thread=${thread}&expected=${expected}`, {
    method: "POST",
    body: JSON.stringify(data),
  });
  return (await res.json()) as { ok?: boolean; error?: string };
}
const load = async (thread: string) =>
  (await (await mf.dispatchFetch(`http://localhost/load?thread=${thread}`)).json()) as ThreadRecord;

describe("a thread record larger than one SQLite value, in workerd", () => {
  test("is written and read back unchanged, shrinks back, and a stale version still loses", async () => {
    const thread = crypto.randomUUID();
    // 5.5 million UTF-16 units of ASCII, é (2 bytes) and 😀 (a surrogate pair, 4 bytes): every cut lands somewhere odd.
    const big = `${"a".repeat(499_999)}😀${"é".repeat(2_000_000)}${"😀".repeat(1_000_000)}z`;
    expect(await cas(thread, 0, record(big))).toEqual({ ok: true });
    const back = await load(thread);
    expect(back.version).toBe(1);
    expect((back.messages[0] as { content: string }).content === big).toBe(true);
    expect(await cas(thread, 0, record("stale"))).toEqual({ ok: false });
    expect(await cas(thread, 1, record("small again"))).toEqual({ ok: true });
    const small = await load(thread);
    expect(small).toMatchObject({ version: 2, messages: [{ content: "small again" }] });
    expect(await cas(thread, 2, record(big))).toEqual({ ok: true });
    expect((await load(thread)).messages).toEqual([{ id: "m1", role: "user", content: big }]);
  }, 60_000);

  test("a call's result and a logged event past 2 MB are kept whole", async () => {
    const thread = crypto.randomUUID();
    const big = `${"é".repeat(1_500_000)}😀${"x".repeat(600_000)}`;
    const settled = (await (
      await mf.dispatchFetch(`http://localhost/ledger?thread=${thread}`, { method: "POST", body: big })
    ).json()) as {
      status: string;
      result?: { content: { text: string }[] };
    };
    expect(settled.status).toBe("done");
    expect(settled.result?.content[0]?.text === big).toBe(true);
    const logged = (await (
      await mf.dispatchFetch(`http://localhost/events?thread=${thread}`, { method: "POST", body: big })
    ).json()) as {
      events: { value?: string }[];
      ended: boolean;
    };
    expect(logged.ended).toBe(true);
    expect(logged.events).toHaveLength(2);
    expect(logged.events[0]?.value === big).toBe(true);
  }, 60_000);
});
