/**
 * "Run it again" is about one lost claim, in a run hosted in its thread's Durable Object (workerd).
 * The object dies mid-transfer (workerd stopped, started again on the same storage); its alarm runs
 * the approving request again, which asks whether the transfer went through. The person answers "run
 * it again": the transfer starts again, and the object dies mid-transfer once more. Its alarm runs
 * the kept answering request again: its answer was about the first lost claim, so the run asks a new
 * question (about the second) and starts nothing; told "it went through", the run ends. The bank
 * object's record counts every transfer that started: two, each one the person asked for.
 */
import { describe, expect, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import { bank, body, ending, json, pausedResume, run, sleep, waitFor, hostedWorld } from "./hosted-client.js";

const { storage, worker: start } = hostedWorld("kaboo-hosted-again-");

const started = async (url: string) => (await bank(url)).filter((e) => e.what === "started").length;

/** The record's outcome_unknown questions not yet answered. */
function openQuestions(record: ThreadRecord): string[] {
  const state = record.session as {
    interrupt_state?: { interrupts: Record<string, { response?: unknown }> };
  } | null;
  return Object.entries(state?.interrupt_state?.interrupts ?? {})
    .filter(([id, i]) => id.includes("outcome_unknown") && i.response === undefined)
    .map(([id]) => id);
}

/** Sends `payload` and stops workerd once the `n`th transfer has started (it never ends there). */
async function diesMidTransfer(w: Awaited<ReturnType<typeof start>>, payload: unknown, n: number): Promise<void> {
  const client = new AbortController();
  const res = await fetch(w.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
    signal: client.signal,
  });
  const reading = res.text().catch(() => undefined);
  while ((await started(w.url)) < n) await sleep(20);
  client.abort();
  await reading;
  await w.mf.dispose();
}

/** Starts workerd again on the storage and waits for the alarm's run again to end (the thread freed). */
async function afterTheAlarm(persist: string) {
  const w = await start(persist);
  const record = await waitFor(
    () => json<ThreadRecord>(`${w.url}/load?thread=t1`),
    (r) => r.lease === null,
    30_000,
  );
  return { w, record };
}

describe("a hosted 'run it again' whose object died mid-transfer too (workerd)", () => {
  test("the alarm runs the answering request again: asked again (a new question), the transfer never starts a third time", async () => {
    const persist = storage("twice");
    const first = await start(persist);
    const approve = await pausedResume(first.url, "t1", 5_000);
    await diesMidTransfer(first, approve, 1);
    const second = await afterTheAlarm(persist);
    const [q1] = openQuestions(second.record);
    expect(openQuestions(second.record)).toHaveLength(1);
    expect(await started(second.w.url)).toBe(1);
    const runAgain = body("t1", {
      resume: [{ interruptId: q1, status: "resolved", payload: { action: "run_again" } }],
    });
    await diesMidTransfer(second.w, runAgain, 2);
    const third = await afterTheAlarm(persist);
    try {
      expect(await started(third.w.url)).toBe(2);
      const open = openQuestions(third.record);
      expect(open).toHaveLength(1);
      expect(open[0]).not.toBe(q1);
      const q2 = open[0] ?? "";
      // The answering request sent again by the client: its recorded outcome, the same question.
      const again = await run(third.w.url, runAgain);
      expect(ending(again)).toBe("interrupt");
      expect(JSON.stringify(again.at(-1))).toContain(q2);
      const done = await run(
        third.w.url,
        body("t1", { resume: [{ interruptId: q2, status: "resolved", payload: { action: "treat_as_done" } }] }),
      );
      expect(ending(done)).toBe("success");
      expect(await started(third.w.url)).toBe(2);
      expect((await bank(third.w.url)).filter((e) => e.what === "sent")).toHaveLength(0);
    } finally {
      await third.w.mf.dispose();
    }
  });
});
