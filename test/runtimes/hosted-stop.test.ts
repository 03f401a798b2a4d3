/**
 * A Stop of a run hosted in its thread's Durable Object survives the object (workerd, miniflare).
 * The Stop is written into the run's lease before its 202 goes out; the object then dies before the
 * run reached its safe point (workerd stopped, started again on the same storage); its alarm runs
 * the kept request again, which takes the thread stopped: a new turn ends cancelled before the
 * model is called, and in a batch the transfer that had not started never starts while the one cut
 * off mid-call stays the question whether it went through. A thread named "slowend-…" writes a
 * run's end 3 s late in the first workerd (test/runtimes/hosted-entry-worker.ts), the window in which workerd is stopped
 * after the Stop; one named "lateend-…" 300 ms late, the window in which a Stop races the run's end.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { STOPPED_BEFORE_RUN } from "../../src/agui/edge/run/safe-stop.js";
import {
  bank,
  body,
  ending,
  load,
  open,
  run,
  sleep,
  toolTexts,
  unknownQuestion,
  waitFor,
  hostedWorld,
} from "./hosted-client.js";

const { storage, worker } = hostedWorld("kaboo-hosted-stop-");

const stop = (url: string, threadId: string, runId?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kaboo_cancel: { threadId, ...(runId ? { runId } : {}) } }),
  });
const startedFor = async (url: string) => (await bank(url)).filter((e) => e.what === "started").map((e) => e.who);
const say = (id: string, content: string) => ({ id, role: "user", content });

describe("a Stop outlives the Durable Object that accepted it (workerd)", () => {
  test("a new turn: Stop accepted (twice), the object dies before the run's end; the alarm's run again ends cancelled, the model not called", async () => {
    const persist = storage("story");
    const first = await worker(persist, { SLOW_END: "1" });
    const story = body("slowend-s1", { messages: [say("u1", "a very long story")] });
    const client = open(first.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT);
    // The same Stop twice: both accepted, one Stop in the lease.
    expect((await stop(first.url, "slowend-s1")).status).toBe(202);
    expect((await stop(first.url, "slowend-s1", story.runId)).status).toBe(202);
    const held = await load(first.url, "slowend-s1");
    expect(held.lease).toMatchObject({ runId: story.runId, cancel: true });
    // The run is cut at once and writes its end 3 s late: workerd stops first.
    await first.mf.dispose();
    await client.done;
    const second = await worker(persist);
    try {
      const record = await waitFor(
        () => load(second.url, "slowend-s1"),
        (r) => r.lease === null,
        20_000,
      );
      // Run again stopped: nothing of a model turn, only the person's message.
      expect(record.messages).toHaveLength(1);
      expect(JSON.stringify(record.messages)).not.toContain("a long story");
      // The Stop was that run's: it stops no other.
      expect((await stop(second.url, "slowend-s1", story.runId)).status).toBe(409);
      const next = await run(
        second.url,
        body("slowend-s1", { messages: [...(record.messages as never[]), say("u2", "hello")] }),
      );
      expect(ending(next)).toBe("success");
      expect((await load(second.url, "slowend-s1")).lease).toBeNull();
    } finally {
      await second.mf.dispose();
    }
  });

  test("a batch: the transfer cut off mid-call stays the question whether it went through, the one not started never starts", async () => {
    const persist = storage("batch");
    const first = await worker(persist);
    const asked = await run(first.url, body("t-b", { messages: [say("u1", "pay alice 5 and bob 7 taking 5000")] }));
    const outcome = (asked.at(-1) as unknown as { outcome: { type: string; interrupts: { id: string }[] } }).outcome;
    expect(outcome.interrupts).toHaveLength(2);
    const resume = body("t-b", {
      resume: outcome.interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
    });
    const client = open(first.url, resume);
    await waitFor(
      () => startedFor(first.url),
      (who) => who.includes("alice"),
    );
    expect((await stop(first.url, "t-b")).status).toBe(202);
    // Alice's transfer takes 5 s: the object dies in the middle of it, with Bob's not started.
    await first.mf.dispose();
    await client.done;
    const second = await worker(persist);
    try {
      const record = await waitFor(
        () => load(second.url, "t-b"),
        (r) => r.lease === null && unknownQuestion(r) !== undefined,
        20_000,
      );
      expect(await startedFor(second.url)).toEqual(["alice"]);
      // The one open question (Alice's approval stays answered: her call is not complete).
      const asking = Object.entries(
        (record.session as { interrupt_state: { interrupts: Record<string, { response?: unknown }> } }).interrupt_state
          .interrupts,
      ).filter(([, i]) => i.response === undefined);
      expect(asking.map(([id]) => id)).toEqual([unknownQuestion(record)]);
      expect(JSON.stringify(record.session)).toContain(STOPPED_BEFORE_RUN);
      // Told it went through: the batch ends as it stood, and nothing else runs.
      const answer = { interruptId: unknownQuestion(record), status: "resolved", payload: { action: "treat_as_done" } };
      const done = await run(second.url, body("t-b", { resume: [answer] }));
      expect(ending(done)).toBe("success");
      expect(await startedFor(second.url)).toEqual(["alice"]);
      const texts = toolTexts(await load(second.url, "t-b")).map(String);
      expect(texts).toHaveLength(2);
      expect(texts.some((t) => t.includes("already ran"))).toBe(true);
      expect(texts.some((t) => t.includes(STOPPED_BEFORE_RUN))).toBe(true);
      expect((await bank(second.url)).filter((e) => e.what === "sent")).toHaveLength(0);
    } finally {
      await second.mf.dispose();
    }
  });

  test("a Stop racing the run's own end (its end not yet written): accepted, the run ends as it had decided, nothing is left for the next run", async () => {
    const { mf, url } = await worker();
    try {
      const hello = body("lateend-r1", { messages: [say("u1", "hello")] });
      const client = open(url, hello);
      await client.until(EventType.TEXT_MESSAGE_END);
      // The run has its answer and is writing its end (300 ms): the lease is still the run's.
      await sleep(100);
      expect((await stop(url, "lateend-r1")).status).toBe(202);
      await client.done;
      expect(ending(client.events)).toBe("success");
      const record = await load(url, "lateend-r1");
      expect(record.lease).toBeNull();
      expect(JSON.stringify(record.messages)).toContain("You said: hello");
      const next = await run(url, body("lateend-r1", { messages: [...(record.messages as never[]), say("u2", "hi")] }));
      expect(ending(next)).toBe("success");
      // Once the run ended, a Stop finds nothing to stop.
      expect((await stop(url, "lateend-r1", hello.runId)).status).toBe(409);
    } finally {
      await mf.dispose();
    }
  });
});
