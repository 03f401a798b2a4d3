/**
 * The event log of a run whose Deno process was killed mid-answer and that another process on the
 * same Deno KV file was sent again (the same request, the same run id): the run again numbers its
 * events on after the last one the dead process logged, ends the message that process left open,
 * and ends the log with its RUN_FINISHED. A client that reattaches from any event of the first
 * attempt gets the rest in order, without a gap or a duplicate; the request sent again sees its own
 * run (its RUN_STARTED, then the run again's events), a valid AG-UI stream. A client that holds
 * events the dead process sent but never logged and reattaches from one of them gets the run from
 * its RUN_STARTED.
 */
import { verifyEvents } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, test } from "vitest";
import { body, sleep } from "./hosted-client.js";
import {
  denoFixture,
  expectEnded,
  expectRest,
  expectVerified,
  expectWholeRun,
  type Frame,
  indexOf,
  markerAt,
  read,
  reattach,
  reattachFrom,
} from "./rerun-log-client.js";

const deno = denoFixture("stop-entry-deno.ts", "kaboo-deno-relog-");

describe("the event log of a run another Deno process ran again", () => {
  test("a reattach from any event of the killed process's attempt gets the rest of the run, to its RUN_FINISHED", async () => {
    const db = deno.db("relog.db");
    const a = await deno.serve(db);
    const b = await deno.serve(db);
    const story = body("t-relog", { messages: [{ id: "u1", role: "user", content: "a story" }] });
    const client = read(a.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 20);
    // Let the log catch up with what the client has (its batches wait 50 ms), then kill the process.
    await sleep(300);
    a.child.kill("SIGKILL");
    await client.done;
    const seen = client.frames;
    // Past the dead run's lease (600 ms): the same request, sent to the other process, runs it again.
    await sleep(1_000);
    const early = reattach(b.url, "t-relog", story.runId, 4);
    const again = read(b.url, story);
    await again.until(EventType.TEXT_MESSAGE_START);
    const live = reattach(b.url, "t-relog", story.runId, 3, true);
    await again.done;
    const whole = await reattach(b.url, "t-relog", story.runId, -1);
    await expectWholeRun(whole, story.runId);
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    const kept = seen.filter((f, i) => indexOf(f) === i && JSON.stringify(whole[i]?.event) === JSON.stringify(f.event));
    expect(kept.length).toBeGreaterThan(10);
    const last = indexOf(kept.at(-1)!);
    expect(whole.filter((f) => f.event.type === EventType.TEXT_MESSAGE_START)).toHaveLength(2);
    expect(whole.filter((f) => f.event.type === EventType.TEXT_MESSAGE_END)).toHaveLength(2);
    expectRest(await early, whole, 4);
    expectRest(await live, whole, 3);
    for (const after of [0, last - 1, last]) {
      const rest = await reattach(b.url, "t-relog", story.runId, after, after % 2 === 1);
      expectEnded(rest);
      expectRest(rest, whole, after);
    }
    // The request sent again: its RUN_STARTED, then the run again's own events, as the log numbers them.
    const own = again.frames;
    expect(own[0]?.id).toBe(`${story.runId}:0`);
    const tail = whole.slice(indexOf(own[1]!));
    expect(own.slice(1).map((f) => f.id)).toEqual(tail.map((f) => f.id));
    expect(own.slice(1).map((f) => f.event)).toEqual(tail.map((f) => f.event));
    await lastValueFrom(from(own.map((f) => f.event)).pipe(verifyEvents(false), toArray()));
  });

  test("a frozen process that wakes while another runs its run again writes nothing more into the run's log", async () => {
    const db = deno.db("frozen.db");
    const a = await deno.serve(db);
    const b = await deno.serve(db);
    const story = body("t-frozen", { messages: [{ id: "u1", role: "user", content: "a story" }] });
    const client = read(a.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 20);
    await deno.freeze(a.child, db);
    await sleep(1_000);
    const again = read(b.url, story);
    await again.until(EventType.TEXT_MESSAGE_CONTENT, 20);
    // A wakes with its answer half told: it goes on streaming it (about 4 s), its writes now late.
    a.child.kill("SIGCONT");
    await Promise.all([again.done, client.done]);
    const whole = await reattach(b.url, "t-frozen", story.runId, -1);
    await expectWholeRun(whole, story.runId);
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    const first = (client.frames.find((f) => f.event.type === EventType.TEXT_MESSAGE_START)?.event ?? {}) as {
      messageId?: string;
    };
    // The frozen run's message ends where the run again took over, and nothing of it comes after.
    const end = whole.findIndex(
      (f) =>
        f.event.type === EventType.TEXT_MESSAGE_END &&
        (f.event as { messageId?: string }).messageId === first.messageId,
    );
    expect(end).toBeGreaterThan(0);
    expect(JSON.stringify(whole.slice(end + 1))).not.toContain(String(first.messageId));
    const own = again.frames;
    expect(own.slice(1).map((f) => f.event)).toEqual(whole.slice(indexOf(own[1]!)).map((f) => f.event));
  });

  test("a reattach from an event the killed process sent but never logged gets the run from its start", async () => {
    const db = deno.db("tail.db");
    const a = await deno.serve(db);
    const b = await deno.serve(db);
    // The process logs its first ten events only: the rest were on their way to the KV file when it died.
    const story = body("tail-relog", { messages: [{ id: "u1", role: "user", content: "a story" }] });
    const client = read(a.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 30);
    a.child.kill("SIGKILL");
    await client.done;
    const lastSeen = client.frames.at(-1) as Frame;
    // Reattached before the run is run again: the log is polled, and a run again takes the event's place.
    const early = reattachFrom(b.url, "tail-relog", lastSeen.id as string);
    await sleep(1_000);
    const again = read(b.url, story);
    await again.until(EventType.TEXT_MESSAGE_START);
    const live = reattachFrom(b.url, "tail-relog", lastSeen.id as string);
    await again.done;
    const whole = await reattach(b.url, "tail-relog", story.runId, -1);
    await expectWholeRun(whole, story.runId);
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    const at = markerAt(whole);
    expect(at).toBe(10);
    const unlogged = client.frames.filter((f) => indexOf(f) >= at);
    expect(unlogged.length).toBeGreaterThan(10);
    for (const rest of [await early, await live]) expect(rest).toEqual(whole);
    for (const f of [unlogged[0], unlogged[7], lastSeen] as Frame[]) {
      const rest = await reattachFrom(b.url, "tail-relog", f.id as string);
      expect(rest).toEqual(whole);
      await expectVerified(rest.map((r) => r.event));
    }
    for (const after of [at - 1, at, at + 2])
      expectRest(await reattachFrom(b.url, "tail-relog", whole[after]?.id as string), whole, after);
  });
});
