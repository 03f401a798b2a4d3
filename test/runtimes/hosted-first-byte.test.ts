/**
 * A hosted run's RUN_STARTED goes out before the run's first durable write (its lease, its kept
 * request and its alarm, written together once it takes the thread), so that the first byte does
 * not wait for the object's output gate. These are the attacks on that order, in workerd: a thread
 * named "slow-…" takes its thread 2 s late (test/runtimes/hosted-entry-worker.ts), a window in
 * which workerd is stopped or other requests come. Whatever happens in it, a run the store does not
 * know has done nothing (the model's and the tools' fetches wait for the writes), a second run is
 * refused, a Stop and a reattach find the run, and the transfer runs at most once.
 */
import { EventType } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import {
  bank,
  body,
  ending,
  json,
  load,
  open,
  pausedResume,
  run,
  sleep,
  toolTexts,
  unknownQuestion,
  waitFor,
  hostedWorld,
} from "./hosted-client.js";

const { storage, worker } = hostedWorld("kaboo-first-byte-");

const sent = async (url: string) => (await bank(url)).filter((e) => e.what === "sent").length;
const started = async (url: string) => (await bank(url)).filter((e) => e.what === "started").length;
const reattach = (url: string, threadId: string, runId?: string, lastEventId?: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    body: JSON.stringify({ kaboo_connect: { threadId, ...(runId ? { runId } : {}) } }),
  });
/** The SSE ids and event types of a response, in order. */
const framesOf = async (res: Response) => {
  expect(res.status).toBe(200);
  const out: { id: string | undefined; type: string; code: string | undefined }[] = [];
  createParser({
    onEvent: (m) => {
      const { type, code } = JSON.parse(m.data) as { type: string; code?: string };
      out.push({ id: m.id, type, code });
    },
  }).feed(await res.text());
  return out;
};
const stop = (url: string, threadId: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kaboo_cancel: { threadId } }),
  });

describe("a hosted run's first byte before its first write (workerd)", () => {
  test("the object dies right after RUN_STARTED, before its writes: the store knows no run, nothing ran, the same request then runs once", async () => {
    const persist = storage("died-before-take");
    const first = await worker(persist);
    const resume = await pausedResume(first.url, "slow-t1", 50);
    const watched = open(first.url, resume);
    await watched.until(EventType.RUN_STARTED);
    await first.mf.dispose();
    const second = await worker(persist);
    try {
      // Past the time an alarm armed with the lease would have fired (600 ms + 1 s).
      await sleep(2_500);
      const record = await load(second.url, "slow-t1");
      const known = record.lease !== null || toolTexts(record).length > 0 || unknownQuestion(record) !== undefined;
      // RUN_STARTED went out before the lease: the object died with nothing of the run written.
      expect(known).toBe(false);
      // Nothing of the run is kept: no lease, no kept request, no log; nothing ran. An alarm armed in
      // the turn of the lease may still fire: it finds no run, and leaves none.
      await waitFor(
        () => json<{ alarm: number | null }>(`${second.url}/alarm?thread=slow-t1`),
        (a) => a.alarm === null,
      );
      expect(JSON.stringify(await json<unknown[]>(`${second.url}/meta?thread=slow-t1`))).not.toContain(resume.runId);
      expect((await reattach(second.url, "slow-t1", resume.runId)).status).toBe(404);
      expect(await started(second.url)).toBe(0);
      // The client sends the same request again: it runs (or replays what ran), the transfer once.
      let events = await run(second.url, resume);
      const unknown = unknownQuestion(await load(second.url, "slow-t1"));
      if (ending(events) === "interrupt" && unknown) {
        const answer = { interruptId: unknown, status: "resolved", payload: { action: "treat_as_done" } };
        events = await run(second.url, body("slow-t1", { resume: [answer] }));
      }
      expect(ending(events)).toBe("success");
      expect(await started(second.url)).toBeLessThanOrEqual(1);
      expect(await sent(second.url)).toBeLessThanOrEqual(1);
      const final = await load(second.url, "slow-t1");
      expect(JSON.stringify(final)).not.toContain("cancelled");
      expect(toolTexts(final)).toEqual(["sent 5 to alice"]);
      expect(await sent(second.url)).toBe(1);
    } finally {
      await second.mf.dispose();
    }
  });

  test("two runs racing for one thread: both start, the first runs, the second is refused THREAD_BUSY and changes nothing", async () => {
    const { mf, url } = await worker();
    try {
      const a = open(url, body("slow-t2", { messages: [{ id: "a1", role: "user", content: "a very long story" }] }));
      // The second comes while the first has not written its lease yet (it waits 2 s to).
      await sleep(300);
      const b = await run(url, body("slow-t2", { messages: [{ id: "b1", role: "user", content: "hello from b" }] }));
      expect(b[0]?.type).toBe(EventType.RUN_STARTED);
      expect(ending(b)).toBe("error:THREAD_BUSY");
      await a.done;
      expect(a.events[0]?.type).toBe(EventType.RUN_STARTED);
      expect(ending(a.events)).toBe("success");
      const record = await load(url, "slow-t2");
      expect(JSON.stringify(record.messages)).not.toContain("hello from b");
      expect(record.messages).toHaveLength(2);
      expect(record.lease).toBeNull();
    } finally {
      await mf.dispose();
    }
  });

  test("a run refused while another runs does not replace the running one's kept request: the object dies, its alarm runs the first again", async () => {
    const persist = storage("refused-keeps-first");
    const first = await worker(persist);
    const resume = await pausedResume(first.url, "t3", 5_000);
    const a = open(first.url, resume);
    await waitFor(
      () => started(first.url),
      (n) => n === 1,
    );
    const refused = await run(first.url, body("t3", { messages: [{ id: "u2", role: "user", content: "hello" }] }));
    expect(ending(refused)).toBe("error:THREAD_BUSY");
    const kept = JSON.stringify(await json<unknown>(`${first.url}/meta?thread=t3`));
    expect(kept).toContain(resume.runId);
    expect(kept).not.toContain("hello");
    await first.mf.dispose();
    await a.done;
    const second = await worker(persist);
    try {
      const record = await waitFor(
        () => load(second.url, "t3"),
        (r) => r.lease === null && unknownQuestion(r) !== undefined,
      );
      expect(toolTexts(record)).toEqual([]);
      expect(await sent(second.url)).toBe(0);
    } finally {
      await second.mf.dispose();
    }
  });

  test("the same resume twice at once, while its thread is taken late: the transfer runs once; sent again, the outcome is replayed", async () => {
    const { mf, url } = await worker();
    try {
      const resume = await pausedResume(url, "slow-t4", 50);
      const [x, y] = [open(url, resume), open(url, resume)];
      await Promise.all([x.done, y.done]);
      // The second is refused while the first runs, or (once it ended) replays its recorded outcome.
      expect([
        ["error:RESUME_IN_PROGRESS", "success"],
        ["success", "success"],
      ]).toContainEqual([ending(x.events), ending(y.events)].sort());
      expect(await sent(url)).toBe(1);
      const again = await run(url, resume);
      expect(ending(again)).toBe("success");
      expect(await started(url)).toBe(1);
      expect(toolTexts(await load(url, "slow-t4"))).toEqual(["sent 5 to alice"]);
    } finally {
      await mf.dispose();
    }
  });

  test("right after RUN_STARTED a reattach and a Stop find the run: the watcher sees what the client sees, the run ends cancelled, nothing is recorded as cancelled that ran", async () => {
    const { mf, url } = await worker();
    try {
      const resume = await pausedResume(url, "slow-t5", 50);
      const client = open(url, resume);
      await client.until(EventType.RUN_STARTED);
      const watching = reattach(url, "slow-t5", resume.runId);
      const stopped = await stop(url, "slow-t5");
      expect(stopped.status).toBe(202);
      const watcher = await watching;
      expect(watcher.status).toBe(200);
      const seen = await watcher.text();
      await client.done;
      expect(ending(client.events)).toBe("cancelled");
      expect(seen).toContain('"cancelled"');
      const record = await waitFor(
        () => load(url, "slow-t5"),
        (r) => r.lease === null,
      );
      // A transfer that started was allowed to finish and is recorded as sent, never as cancelled.
      if ((await started(url)) > 0) expect(toolTexts(record)).toEqual(["sent 5 to alice"]);
      else expect(await sent(url)).toBe(0);
      expect(await started(url)).toBeLessThanOrEqual(1);
    } finally {
      await mf.dispose();
    }
  });
});

describe("a hosted run begins once its response took RUN_STARTED (workerd)", () => {
  test("RUN_STARTED reaches the client before the run reads its thread; a Stop and a reattach meanwhile wait for the run, and the Stop stops it", async () => {
    const { mf, url } = await worker();
    try {
      // On a "gated-…" thread the run's read of its thread waits until /open (hosted-entry-worker.ts).
      const client = open(url, body("gated-t7", { messages: [{ id: "u1", role: "user", content: "a story" }] }));
      const first = await Promise.race([client.until(EventType.RUN_STARTED).then(() => "RUN_STARTED"), sleep(5_000)]);
      expect(first).toBe("RUN_STARTED");
      expect(client.events.map((e) => e.type)).toEqual([EventType.RUN_STARTED]);
      const runId = (client.events[0] as unknown as { runId: string }).runId;
      const stopping = stop(url, "gated-t7");
      const watching = reattach(url, "gated-t7", runId);
      await sleep(300);
      expect(client.events.map((e) => e.type)).toEqual([EventType.RUN_STARTED]);
      await fetch(`${url}/open?thread=gated-t7`, { method: "POST" });
      expect((await stopping).status).toBe(202);
      const watcher = await watching;
      expect(watcher.status).toBe(200);
      const seen = await watcher.text();
      await client.done;
      expect(ending(client.events)).toBe("cancelled");
      expect(seen).toContain('"cancelled"');
      const record = await waitFor(
        () => load(url, "gated-t7"),
        (r) => r.lease === null,
      );
      // Stopped before the model was asked: nothing of the story was kept.
      expect(JSON.stringify(record.messages)).not.toContain("a long story");
    } finally {
      await mf.dispose();
    }
  });
});

describe("a run the alarm runs again that is refused before it takes the thread (workerd)", () => {
  test("the alarm gives up: the thread is free, the kept request dropped, no alarm left, the run's log ends with why", async () => {
    const persist = storage("alarm-gives-up");
    const first = await worker(persist);
    const resume = await pausedResume(first.url, "t6", 5_000);
    const a = open(first.url, resume);
    await waitFor(
      () => started(first.url),
      (n) => n === 1,
    );
    await first.mf.dispose();
    await a.done;
    // This deployment cannot make the agent: the run again is refused before it takes the thread.
    const second = await worker(persist, { REFUSE_RERUN: "1" });
    try {
      await waitFor(
        () => load(second.url, "t6"),
        (r) => r.lease === null,
        10_000,
      );
      // Two alarm periods later nothing was armed again.
      await sleep(3_500);
      expect((await json<{ alarm: number | null }>(`${second.url}/alarm?thread=t6`)).alarm).toBeNull();
      expect(await json<unknown[]>(`${second.url}/meta?thread=t6`)).toEqual([]);
      expect((await load(second.url, "t6")).lease).toBeNull();
      const whole = await framesOf(await reattach(second.url, "t6", resume.runId));
      const end = whole.length - 1;
      expect(whole[end]).toEqual({ id: `${resume.runId}:${end}.1`, type: "RUN_ERROR", code: "RUN_NOT_RESUMED" });
      // A client that read events the dead attempt never logged: the run from its RUN_STARTED to why it ended.
      for (const n of [end, end + 3])
        expect(await framesOf(await reattach(second.url, "t6", undefined, `${resume.runId}:${n}`))).toEqual(whole);
      // From the give-up's own id: nothing more; an attempt never run: 400.
      expect(await framesOf(await reattach(second.url, "t6", undefined, whole[end]?.id))).toEqual([]);
      expect((await reattach(second.url, "t6", undefined, `${resume.runId}:${end}.2`)).status).toBe(400);
      expect(await sent(second.url)).toBe(0);
    } finally {
      await second.mf.dispose();
    }
  });
});
