/**
 * The run channel's echo to this tab's own listeners, in real Chromium: messages arrive in the order they were
 * posted. A watcher relies on it: the driver's answer to its join holds the message so far, and a live event the
 * driver posted before that answer must reach the watcher before it, or the watcher shows that part twice.
 * Chromium clamps a timer set from deeply nested timers (a model streaming on timers) to 4 ms, so an echo made
 * of one timer per message could overtake an earlier one.
 */
import type { BaseEvent } from "@ag-ui/core";
import { expect, test } from "vitest";
import { RunChannel } from "../../../src/agui/page/run-lock.js";

const event = { type: "CUSTOM", name: "n", value: 1 } as unknown as BaseEvent;

/** Runs `fn` in a timer nested `depth` timers deep. */
function nested(depth: number, fn: () => void): void {
  setTimeout(() => (depth <= 1 ? fn() : nested(depth - 1, fn)), 0);
}

/** Runs `fn` in a task that is not a timer (a message port's message). */
function inTask(fn: () => void): void {
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = () => {
    port1.close();
    fn();
  };
  port2.postMessage(null);
}

test("this tab's listeners get the channel's messages in the order they were posted, from any timer depth", async () => {
  for (let round = 0; round < 5; round++) {
    const channel = new RunChannel(`order-${crypto.randomUUID()}`);
    const got: string[] = [];
    const joined: string[] = [];
    const done = new Promise<void>((resolve) => {
      channel.listen((m) => {
        got.push(m.runId);
        if (got.length === 3) resolve();
      }, "w");
    });
    channel.onJoin((id) => {
      joined.push(id);
      // The driver answers a join with what it has now: after every event it posted before.
      channel.post({ runId: `answer:${id}`, event, to: id });
    });
    // A live event from a model streaming on nested timers, then a watcher's join from a task that is no timer.
    nested(8, () => {
      channel.post({ runId: "live", event });
      inTask(() => channel.join("w"));
      inTask(() => channel.post({ runId: "later", event }));
    });
    await done;
    channel.close();
    expect(joined).toEqual(["w"]);
    // In the order posted: "later" was posted before the driver heard the join and answered it.
    expect(got).toEqual(["live", "later", "answer:w"]);
  }
});
