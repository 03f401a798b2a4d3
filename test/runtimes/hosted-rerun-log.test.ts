/**
 * The event log of a run hosted in its thread's Durable Object that died mid-answer and was run
 * again by the object's alarm (workerd, miniflare; workerd stopped, started again on the same
 * storage). The run again numbers its events on after the last one the dead attempt logged, ends
 * what that attempt left open (its text message), and ends the log with its own RUN_FINISHED: a
 * client that reattaches from any event of the first attempt, through the log or to the live run,
 * gets the rest in order, without a gap or a duplicate, to the run's end. A client that holds events
 * the dead attempt sent but never logged (its last batches were on their way when the object died)
 * and reattaches from one of them gets the run from its RUN_STARTED, the run again's first events
 * and its END events included.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { body, load, sleep, waitFor, hostedWorld } from "./hosted-client.js";
import {
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

const { storage, worker: start } = hostedWorld("kaboo-hosted-relog-");

describe("the event log of a hosted run the alarm ran again (workerd)", () => {
  test("a reattach from any event of the dead attempt gets the rest of the run, to its RUN_FINISHED", async () => {
    const persist = storage("story");
    const first = await start(persist);
    const story = body("t-relog", { messages: [{ id: "u1", role: "user", content: "a very long story" }] });
    const client = read(first.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 20);
    // Let the log catch up with what the client has (its batches wait 50 ms), then the object dies mid-answer.
    await sleep(300);
    await first.mf.dispose();
    await client.done;
    const seen = client.frames;
    expect(seen.some((f) => f.event.type === EventType.TEXT_MESSAGE_END)).toBe(false);
    const second = await start(persist);
    try {
      const held = (await load(second.url, "t-relog")).lease;
      expect(held?.runId).toBe(story.runId);
      // Reattached before the alarm ran the run again: the log is polled until the run's end.
      const early = reattach(second.url, "t-relog", story.runId, 5);
      // Reattached once the alarm has run it again: while it is live in the object (its own events) or,
      // on a loaded machine where the whole run again can fall between two polls, from the log after it.
      await waitFor(
        () => load(second.url, "t-relog"),
        (r) => r.lease === null || r.lease.token !== held?.token,
        20_000,
      );
      const live = reattach(second.url, "t-relog", story.runId, 2, true);
      const whole = await reattach(second.url, "t-relog", story.runId, -1);
      await expectWholeRun(whole, story.runId);
      expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
      // The dead attempt's events as the client had them, then the end of its open message.
      const logged = seen.filter((f, i) => indexOf(f) === i && i < whole.length);
      const kept = logged.filter((f) => JSON.stringify(whole[indexOf(f)]?.event) === JSON.stringify(f.event));
      expect(kept.length).toBeGreaterThan(10);
      const last = indexOf(kept.at(-1)!);
      const start = seen.find((f) => f.event.type === EventType.TEXT_MESSAGE_START);
      const opened = (start?.event as { messageId?: string } | undefined)?.messageId;
      expect(whole.find((f) => f.event.type === EventType.TEXT_MESSAGE_END)?.event).toMatchObject({
        messageId: opened,
      });
      // The cut answer is asked of the model again: a message of its own, after the dead one's end.
      expect(whole.filter((f) => f.event.type === EventType.TEXT_MESSAGE_START)).toHaveLength(2);
      expectRest(await early, whole, 5);
      expectRest(await live, whole, 2);
      for (const after of [0, last - 1, last]) {
        const rest = await reattach(second.url, "t-relog", story.runId, after, after % 2 === 0);
        expectEnded(rest);
        expectRest(rest, whole, after);
      }
      expect((await load(second.url, "t-relog")).lease).toBeNull();
    } finally {
      await second.mf.dispose();
    }
  });

  test("a reattach from an event the dead attempt never logged gets the run from its start", async () => {
    const persist = storage("tail");
    const first = await start(persist);
    // The object logs its first ten events only: the rest were on their way to storage when it died.
    const story = body("tail-relog", { messages: [{ id: "u1", role: "user", content: "a very long story" }] });
    const client = read(first.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 30);
    await first.mf.dispose();
    await client.done;
    const seen = client.frames;
    const lastSeen = seen.at(-1) as Frame;
    expect(indexOf(lastSeen)).toBeGreaterThan(20);
    const second = await start(persist);
    try {
      const held = (await load(second.url, "tail-relog")).lease;
      expect(held?.runId).toBe(story.runId);
      // Reattached before the alarm ran it again (the log polled), and once it has (live in the object, or its log).
      const early = reattachFrom(second.url, "tail-relog", lastSeen.id as string);
      await waitFor(
        () => load(second.url, "tail-relog"),
        (r) => r.lease === null || r.lease.token !== held?.token,
        20_000,
      );
      const live = reattachFrom(second.url, "tail-relog", lastSeen.id as string);
      const whole = await reattach(second.url, "tail-relog", story.runId, -1);
      await expectWholeRun(whole, story.runId);
      expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
      // The log holds the dead attempt's first ten events, then the run again's marker and END events.
      const again = markerAt(whole);
      expect(again).toBe(10);
      expect(whole.slice(0, again).map((f) => f.event)).toEqual(seen.slice(0, again).map((f) => f.event));
      const unlogged = seen.filter((f) => indexOf(f) >= again);
      expect(unlogged.length).toBeGreaterThan(10);
      for (const rest of [await early, await live]) expect(rest).toEqual(whole);
      for (const f of [unlogged[0], unlogged[5], lastSeen] as Frame[]) {
        const rest = await reattachFrom(second.url, "tail-relog", f.id as string);
        expect(rest).toEqual(whole);
        // The client starts its view of the run over: a new AG-UI run's verifier accepts it.
        await expectVerified(rest.map((r) => r.event));
      }
      // From a logged event of the dead attempt, or one of the run again's: exactly the rest.
      for (const after of [again - 1, again, again + 1, whole.length - 2]) {
        const rest = await reattachFrom(second.url, "tail-relog", whole[after]?.id as string);
        expectEnded(rest);
        expectRest(rest, whole, after);
      }
      await expectVerified([...seen.slice(0, again).map((f) => f.event), ...whole.slice(again).map((f) => f.event)]);
      // Forged: the run again's attempt before it started, an attempt never run, an index past the end.
      for (const id of [
        `${story.runId}:${again - 1}.1`,
        `${story.runId}:${again}.2`,
        `${story.runId}:${whole.length}.1`,
      ]) {
        const res = await fetch(second.url, {
          method: "POST",
          headers: { "content-type": "application/json", "last-event-id": id },
          body: JSON.stringify({ kaboo_connect: { threadId: "tail-relog" } }),
        });
        expect(res.status, id).toBe(400);
        expect(await res.json()).toMatchObject({ error: "invalid_last_event_id" });
      }
    } finally {
      await second.mf.dispose();
    }
  });
});
