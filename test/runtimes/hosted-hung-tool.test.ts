/**
 * A hung tool in a run hosted by its thread's Durable Object (workerd, miniflare): an approved transfer
 * that takes 17 minutes and ignores its signal. The owner's Stop aborts its signal; after the agent's
 * grace (the default, 5 s) the call is abandoned: the run ends asking whether it went through, the thread
 * is free (its lease released, no alarm left to run it again), the same resume is answered with that
 * question, and "cancel" closes the call without a second start.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundleEntry } from "./bundle.js";
import { bank, body, ending, load, open, pausedResume, run, waitFor, worker } from "./hosted-client.js";

let script: string;
beforeAll(async () => {
  script = await bundleEntry("hosted-entry-worker.ts");
}, 60_000);

describe("a hung tool in a hosted run (workerd)", () => {
  let w: Awaited<ReturnType<typeof worker>>;
  beforeAll(async () => {
    w = await worker(script);
  }, 60_000);
  afterAll(() => w?.mf.dispose());

  test("Stop: abandoned after the grace, the thread free, the question asked again on the same resume, no second start", async () => {
    const resume = await pausedResume(w.url, "hang-1", 1_000_000);
    const client = open(w.url, resume);
    await waitFor(
      () => bank(w.url),
      (log) => log.some((e) => e.what === "started" && e.who === "alice"),
    );
    const stop = await fetch(w.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kaboo_cancel: { threadId: "hang-1" } }),
    });
    expect(stop.status).toBe(202);
    const stoppedAt = Date.now();
    await client.done;
    // The grace (5 s) plus the run's end; never the transfer's 17 minutes.
    expect(Date.now() - stoppedAt).toBeLessThan(12_000);
    expect(ending(client.events)).toBe("interrupt");
    const record = await load(w.url, "hang-1");
    expect(record.lease).toBeNull();
    const finished = client.events.at(-1) as unknown as { outcome: { interrupts: { id: string }[] } };
    const question = finished.outcome.interrupts.find((i) => i.id.includes("outcome_unknown"))?.id;
    expect(question).toBeDefined();
    // The same resume again: the recorded outcome, the same question; never RESUME_IN_PROGRESS.
    const again = await run(w.url, resume);
    expect(ending(again)).toBe("interrupt");
    expect(JSON.stringify(again.at(-1))).toContain(question as string);
    const cancel = { interruptId: question, status: "resolved", payload: { action: "cancel" } };
    const closed = await run(w.url, body("hang-1", { resume: [cancel] }));
    expect(ending(closed)).toBe("success");
    expect(JSON.stringify((await load(w.url, "hang-1")).messages)).toContain("chose not to run");
    expect((await bank(w.url)).filter((e) => e.who === "alice").map((e) => e.what)).toEqual(["started"]);
  }, 60_000);
});
