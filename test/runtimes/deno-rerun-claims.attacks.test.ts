/**
 * A Deno process killed (or frozen) in the middle of an approved transfer, and the same resume sent
 * to another process on the same Deno KV file once the dead run's hold ran out (600 ms): the run
 * again took the thread over from that run by compare-and-set, so the dead run's claim without a
 * result reads `unknown` at once, and the person is asked whether the transfer went through (it did
 * end CALL_IN_PROGRESS for the claim's whole 15-minute lease). A claim held by a live process (made
 * outside any run, as a stateless handler sharing the ledger makes it) still reads `running`. The
 * transfer never runs twice: not when two processes are sent the resume at once, not when the same
 * resume is sent again, and not when the frozen process wakes and records its late result.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import { body, ending, json, run, sleep, toolTexts, unknownQuestion, waitFor } from "./hosted-client.js";
import { denoFixture, read } from "./rerun-log-client.js";

const deno = denoFixture("rerun-entry-deno.ts", "kaboo-deno-reclaim-");

const serve = deno.serve;
const bank = (url: string) => json<{ what: string; who: string }[]>(`${url}/bank`);
const load = (url: string, thread: string) => json<ThreadRecord>(`${url}/load?thread=${thread}`);
const claim = (url: string, thread: string, key: string) =>
  json<{ status: string }>(`${url}/claim?thread=${thread}&key=${key}`);
const count = async (url: string, what: string) => (await bank(url)).filter((e) => e.what === what).length;

/** Pauses `text` ("pay alice 5 taking 5000") on `url` and returns the approving resume. */
async function approvedResume(url: string, threadId: string, text = "pay alice 5 taking 5000") {
  const asked = await run(url, body(threadId, { messages: [{ id: "u1", role: "user", content: text }] }));
  const outcome = (asked.at(-1) as unknown as { outcome: { type: string; interrupts: { id: string }[] } }).outcome;
  expect(outcome.type).toBe("interrupt");
  const approve = (i: { id: string }) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } });
  return body(threadId, { resume: outcome.interrupts.map(approve) });
}

/** Sends `resume` to `url` and waits for Alice's transfer to start (it takes 5 s). */
async function midTransfer(url: string, resume: unknown) {
  const client = read(url, resume);
  await waitFor(
    () => bank(url),
    (rows) => rows.some((e) => e.what === "started"),
  );
  return client;
}

const answer = (threadId: string, record: ThreadRecord, action: string) =>
  body(threadId, { resume: [{ interruptId: unknownQuestion(record), status: "resolved", payload: { action } }] });

/** The run ended asking whether the transfer went through (and with no CALL_IN_PROGRESS). */
function expectAsked(events: { type: string }[]): void {
  expect(events.find((e) => e.type === EventType.RUN_ERROR)).toBeUndefined();
  expect(ending(events as never)).toBe("interrupt");
  expect(JSON.stringify(events.at(-1))).toContain("outcome_unknown");
}

describe("a Deno run again of a resume whose process died mid-call", () => {
  test("killed: the run again asks whether the transfer went through; a live process's claim still reads running", async () => {
    const db = deno.db("killed.db");
    const [a, b] = [await serve(db), await serve(db)];
    const resume = await approvedResume(a.url, "t1");
    expect((await claim(b.url, "t1", "stateless-call")).status).toBe("claimed");
    const client = await midTransfer(a.url, resume);
    a.child.kill("SIGKILL");
    await client.done;
    await sleep(1_000);
    expectAsked(await run(b.url, resume));
    expect((await claim(b.url, "t1", "stateless-call")).status).toBe("running");
    // The same resume again: its recorded outcome, the same question; nothing runs.
    expectAsked(await run(b.url, resume));
    const record = await load(b.url, "t1");
    expect(record.lease).toBeNull();
    const done = await run(b.url, answer("t1", record, "treat_as_done"));
    expect(ending(done)).toBe("success");
    expect(await count(b.url, "started")).toBe(1);
    expect(await count(b.url, "sent")).toBe(0);
  });

  test("two processes sent the same resume at once after the death: one asks, the other runs nothing; run again once when asked to", async () => {
    const db = deno.db("race.db");
    const [a, b, c] = [await serve(db), await serve(db), await serve(db)];
    const resume = await approvedResume(a.url, "t2");
    const client = await midTransfer(a.url, resume);
    a.child.kill("SIGKILL");
    await client.done;
    await sleep(1_000);
    const both = await Promise.all([run(b.url, resume), run(c.url, resume)]);
    const asked = both.filter((events) => ending(events) === "interrupt");
    expect(asked.length).toBeGreaterThanOrEqual(1);
    for (const events of asked) expectAsked(events);
    for (const events of both.filter((e) => ending(e) !== "interrupt"))
      expect(ending(events)).toBe("error:RESUME_IN_PROGRESS");
    expect(await count(b.url, "started")).toBe(1);
    // The person says run it again: it runs once more, by their choice, and once only.
    const record = await load(b.url, "t2");
    const again = answer("t2", record, "run_again");
    const runs = await Promise.all([run(b.url, again), run(c.url, again)]);
    expect(runs.map(ending).sort()).toEqual(["error:RESUME_IN_PROGRESS", "success"]);
    expect(await count(b.url, "started")).toBe(2);
    expect(await count(b.url, "sent")).toBe(1);
    expect(toolTexts(await load(c.url, "t2"))).toEqual(["sent 5 to alice"]);
  });

  test("frozen, then woken: its late result is recorded, and asked to run again the transfer is not run twice", async () => {
    const db = deno.db("frozen.db");
    const [a, b] = [await serve(db), await serve(db)];
    const resume = await approvedResume(a.url, "t3");
    const client = await midTransfer(a.url, resume);
    await deno.freeze(a.child, db);
    await sleep(1_000);
    expectAsked(await run(b.url, resume));
    // The frozen process wakes: its transfer finishes and it settles its claim; its end is not saved.
    a.child.kill("SIGCONT");
    await waitFor(
      () => bank(b.url),
      (rows) => rows.some((e) => e.what === "sent"),
    );
    await client.done;
    const record = await waitFor(
      () => load(b.url, "t3"),
      (r) => r.lease === null,
    );
    expect(unknownQuestion(record)).toBeDefined();
    const done = await run(b.url, answer("t3", record, "run_again"));
    expect(ending(done)).toBe("success");
    expect(await count(b.url, "started")).toBe(1);
    expect(await count(b.url, "sent")).toBe(1);
    expect(toolTexts(await load(b.url, "t3"))).toEqual(["sent 5 to alice"]);
  });

  test("frozen, then woken, its run goes on to a new call: that call is refused there, and runs once, in the run that holds the thread", async () => {
    const db = deno.db("zombie.db");
    const [a, b] = [await serve(db), await serve(db)];
    const resume = await approvedResume(a.url, "t4", "pay alice 5 taking 3000 then refund carol 3");
    const client = await midTransfer(a.url, resume);
    await deno.freeze(a.child, db);
    await sleep(1_000);
    expectAsked(await run(b.url, resume));
    // The frozen process wakes: its transfer ends, and its run asks the model on, which calls the refund.
    a.child.kill("SIGCONT");
    await client.done;
    expect(await count(b.url, "sent")).toBe(1);
    expect(await count(b.url, "refunded")).toBe(0);
    const record = await load(b.url, "t4");
    expect(record.lease).toBeNull();
    const done = await run(b.url, answer("t4", record, "treat_as_done"));
    expect(ending(done)).toBe("success");
    expect(await count(b.url, "started")).toBe(1);
    expect(await count(b.url, "refunded")).toBe(1);
    expect(toolTexts(await load(b.url, "t4")).map(String)).toEqual(["sent 5 to alice", "refunded 3 to carol"]);
  });

  test("a Stop while the run again executes its batch: the transfer cut off with the dead process stays the question", async () => {
    const db = deno.db("stop.db");
    const [a, b] = [await serve(db), await serve(db)];
    const resume = await approvedResume(a.url, "t5", "pay alice 5 and bob 7 taking 2000");
    const client = await midTransfer(a.url, resume);
    a.child.kill("SIGKILL");
    await client.done;
    await sleep(1_000);
    // The run again: Alice's transfer is the question whether it went through, Bob's runs (2 s).
    const again = read(b.url, resume);
    await waitFor(
      () => bank(b.url),
      (rows) => rows.some((e) => e.what === "started" && e.who === "bob"),
    );
    const stopped = await fetch(b.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kaboo_cancel: { threadId: "t5" } }),
    });
    expect(stopped.status).toBe(202);
    await again.done;
    const events = again.frames.map((f) => f.event);
    // Bob's result is settled (a write to the KV file) after the Stop's abort: the batch is recorded stopped.
    expectAsked(events);
    const record = await load(b.url, "t5");
    expect(record.lease).toBeNull();
    expect(unknownQuestion(record)).toBeDefined();
    expect(JSON.stringify(record)).not.toContain("cancelled before this tool ran");
    expect(JSON.stringify(record.session)).toContain("sent 7 to bob");
    const done = await run(b.url, answer("t5", record, "treat_as_done"));
    expect(ending(done)).toBe("success");
    expect((await bank(b.url)).filter((e) => e.what === "started").map((e) => e.who)).toEqual(["alice", "bob"]);
  });
});
