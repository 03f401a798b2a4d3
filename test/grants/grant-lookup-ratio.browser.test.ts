/**
 * Measurement, not a check: grant lookup for 1,000 stored grants in Chromium
 * (`grantsFor` + `findGrant`), as a ratio to a bare idb-keyval `getMany` and
 * `entries` of the same 1,000 entries in the same run. Prints
 * "grant lookup ratio: X"; asserts only that the lookups found what they should.
 */
import { createStore, entries, getMany, setMany } from "idb-keyval";
import { expect, test } from "vitest";
import { IndexedDbGrantStore, findGrant, grantId, indexGrants } from "../../src/grants/index.js";
import type { Grant } from "../../src/grants/index.js";

const N = 1_000;
const ROUNDS = 40;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

test("grant lookup time for 1,000 stored grants vs bare idb-keyval reads", async () => {
  const dbName = `grants-bench-${crypto.randomUUID()}`;
  const raw = createStore(dbName, "grants");
  const grants: Grant[] = Array.from({ length: N }, (_, i) =>
    i % 2
      ? { tool: `tool_${i % 50}`, subjectKey: `subject:${i}`, scope: "always", grantedAt: 1 }
      : { tool: `tool_${i % 50}`, subjectKey: `subject:${i}`, scope: "thread", threadId: `t${i % 10}`, grantedAt: 1 },
  );
  await setMany(
    grants.map((g) => [grantId(g), g]),
    raw,
  );
  const keys = grants.map((g) => grantId(g));
  const store = new IndexedDbGrantStore({ dbName, customStore: raw, channelName: null });
  const target = grants[N - 2] as Grant; // a thread grant in t8

  const lookup = async () => {
    const forThread = await store.grantsFor("t8", { now: 2 });
    return findGrant(forThread, { tool: target.tool, subjectKey: target.subjectKey, threadId: "t8", now: 2 });
  };
  const lookupIndexed = async () => {
    const index = indexGrants(await store.grantsFor("t8", { now: 2 }));
    return index.find({ tool: target.tool, subjectKey: target.subjectKey, threadId: "t8", now: 2 });
  };

  expect(await lookup()).toEqual(target);
  expect(await lookupIndexed()).toEqual(target);
  expect((await store.grantsFor("t8", { now: 2 })).length).toBe(N / 2 + N / 10);
  // Warm-up: JIT, the IndexedDB connection, zod's compiled parsers.
  for (let i = 0; i < 5; i++) {
    await lookup();
    await getMany(keys, raw);
    await entries(raw);
  }

  const times = { lookup: [] as number[], indexed: [] as number[], getMany: [] as number[], entries: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved so drift (GC, other work on the machine) hits every variant alike.
    let t = performance.now();
    await getMany(keys, raw);
    times.getMany.push(performance.now() - t);
    t = performance.now();
    await entries(raw);
    times.entries.push(performance.now() - t);
    t = performance.now();
    await lookup();
    times.lookup.push(performance.now() - t);
    t = performance.now();
    await lookupIndexed();
    times.indexed.push(performance.now() - t);
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
    keyof typeof times,
    number
  >;
  const ratio = m.lookup / m.getMany;
  console.log(
    `grant lookup ratio: ${ratio.toFixed(2)} (grantsFor+findGrant ${m.lookup.toFixed(2)} ms vs getMany ${m.getMany.toFixed(2)} ms, median of ${ROUNDS}, ${N} grants)`,
  );
  console.log(
    `grant lookup vs entries: ${(m.lookup / m.entries).toFixed(2)} (entries ${m.entries.toFixed(2)} ms); with indexGrants: ${m.indexed.toFixed(2)} ms`,
  );
  store.close();
  // 40 interleaved rounds over 1,000 grants: seconds, and more on a loaded machine (15 s by default).
}, 60_000);
