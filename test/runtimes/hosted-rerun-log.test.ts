/**
 * The event log of a run hosted in its thread's Durable Object that died mid-answer and was run
 * again by the object's alarm (workerd, miniflare; workerd stopped, started again on the same
 * storage). The run again numbers its events on after the last one the dead attempt logged, ends
 * what that attempt left open (its text message), and ends the log with its own RUN_FINISHED: a
 * client that reattaches from any event of the first attempt, through the log or to the live run,
 * gets the rest in order, without a gap or a duplicate, to the run's end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundleEntry } from "./bundle.js";
import { body, load, sleep, waitFor, worker as start } from "./hosted-client.js";
import { expectEnded, expectRest, expectWholeRun, indexOf, read, reattach } from "./rerun-log-client.js";

let dir: string;
let script: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-hosted-relog-"));
  script = await bundleEntry("hosted-entry-worker.ts");
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the event log of a hosted run the alarm ran again (workerd)", () => {
  test("a reattach from any event of the dead attempt gets the rest of the run, to its RUN_FINISHED", async () => {
    const persist = join(dir, "story");
    const first = await start(script, persist);
    const story = body("t-relog", { messages: [{ id: "u1", role: "user", content: "a very long story" }] });
    const client = read(first.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT, 20);
    // Let the log catch up with what the client has (its batches wait 50 ms), then the object dies mid-answer.
    await sleep(300);
    await first.mf.dispose();
    await client.done;
    const seen = client.frames;
    expect(seen.some((f) => f.event.type === EventType.TEXT_MESSAGE_END)).toBe(false);
    const second = await start(script, persist);
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
});
