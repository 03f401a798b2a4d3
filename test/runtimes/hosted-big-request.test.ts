/**
 * A hosted run's request past the 2 MB one SQLite value holds (a handler whose `maxBodyBytes` allows it), in
 * workerd: the object keeps it whole while the run lives, so an object that dies mid-transfer runs it again
 * from its alarm and asks whether the transfer went through; the transfer runs once. Before, keeping the
 * request failed with SQLITE_TOOBIG in the turn the run took its thread.
 */
import { expect, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import { bank, hostedWorld, json, pausedResume, runThenDrop, unknownQuestion, waitFor } from "./hosted-client.js";

const { storage, worker } = hostedWorld("kaboo-hosted-big-");

test("a 3 MB request that dies with its object mid-transfer is run again whole, and the transfer runs once", async () => {
  const persist = storage("big");
  const first = await worker(persist);
  // 1.5 million é (two bytes each) and astral characters: the kept text is cut in parts somewhere odd.
  const notes = `${"é".repeat(1_500_000)}😀${"x".repeat(10)}`;
  const resume = {
    ...(await pausedResume(first.url, "big1", 5_000)),
    context: [{ description: "notes", value: notes }],
  };
  await runThenDrop(first.url, resume, async () => (await bank(first.url)).some((e) => e.what === "started"));
  await first.mf.dispose();
  const second = await worker(persist);
  try {
    // The alarm ran the kept request again: the lost transfer is a question now, and it did not run again.
    const record = await waitFor(
      () => json<ThreadRecord>(`${second.url}/load?thread=big1`),
      (r) => r.lease === null && unknownQuestion(r) !== undefined,
    );
    expect(unknownQuestion(record)).toBeDefined();
    expect((await bank(second.url)).filter((e) => e.what === "started")).toHaveLength(1);
  } finally {
    await second.mf.dispose();
  }
}, 90_000);
