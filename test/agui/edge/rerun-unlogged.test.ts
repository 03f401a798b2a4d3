/**
 * A reattach from an event the dead attempt sent but never logged. A live client reads a run's
 * events up to a batch (50 ms) before they are in the thread's log, so when the attempt dies the
 * client usually holds ids beyond the log's last index. The run again numbers its own events after
 * the last logged one: an id of the unlogged tail names an event the log holds something else under.
 * The run again's ids say which attempt sent them, so a reattach from an unlogged id is told apart
 * and answered with the run from its RUN_STARTED (what the client held of it is void), a stream an
 * AG-UI client's verifier accepts on its own; a reattach from a logged id or one of the run again's
 * gets exactly the rest. In this isolate (the run's hub) and in another one (the thread's log).
 */
import { verifyEvents } from "@ag-ui/client";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { parseEventId } from "../../../src/agui/edge/run/run-hub.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import type { JsonValue } from "../../../src/agent/messages/messages.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { input } from "../helpers.js";
import { elsewhere, post, quietLogger } from "./fixtures.js";

interface Frame {
  id: string | undefined;
  event: BaseEvent;
}

async function frames(res: Response): Promise<Frame[]> {
  expect(res.status).toBe(200);
  const out: Frame[] = [];
  createParser({ onEvent: (m) => out.push({ id: m.id, event: JSON.parse(m.data) as BaseEvent }) }).feed(
    await res.text(),
  );
  return out;
}

const verified = (events: BaseEvent[]) => lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));

/** An agent that echoes the user. */
const echo = () =>
  new Agent({ model: new ScriptedModel({ script: ({ lastUserText }) => ({ text: `You said: ${lastUserText}` }) }) });

/** The echo behind a handler on `store`, and behind another on the same storage in another isolate. */
function twoIsolates(store: MemoryThreadStore) {
  return {
    handle: createAguiHandler({ stores: { thread: store }, agent: echo, logger: quietLogger() }),
    other: createAguiHandler({ stores: { thread: elsewhere(store) }, agent: echo, logger: quietLogger() }),
  };
}

const at = Date.now();
/** What the dead attempt sent: the first five logged, the rest seen live only (its last batch died with it). */
const sent = (runId: string): JsonValue[] => [
  { type: EventType.RUN_STARTED, threadId: "t1", runId, timestamp: at },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", timestamp: at },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Paying ", timestamp: at },
  { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "transfer", parentMessageId: "m1", timestamp: at },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"to":', timestamp: at },
  // Unlogged: it closes what the log leaves open, and opens what the log never saw.
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '"bob"}', timestamp: at },
  { type: EventType.TOOL_CALL_END, toolCallId: "c1", timestamp: at },
  { type: EventType.TEXT_MESSAGE_END, messageId: "m1", timestamp: at },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m2", role: "assistant", timestamp: at },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m2", delta: "Done", timestamp: at },
];
const LOGGED = 5;

/**
 * A thread whose run's attempt died (its lease ran out; `lease` adds to it) with `logged(runId)` in
 * its log (default: the first LOGGED events it sent), run again by the request sent again (the object's
 * alarm, another process), and the whole run as another isolate reads it back.
 */
async function ranAgain(
  o: { lease?: { token: string; attempt?: number }; logged?: (runId: string) => JsonValue[] } = {},
) {
  const store = new MemoryThreadStore();
  const request = input({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "hello" }] });
  const lease = { token: "dead", runId: request.runId, resume: false, expiresAt: Date.now() - 1, ...o.lease };
  const record = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: at };
  expect(await store.compareAndSet("t1", 0, record)).toBe(true);
  const logged = o.logged?.(request.runId) ?? sent(request.runId).slice(0, LOGGED);
  // An attempt that died before its first batch reached the log left nothing of the run there.
  if (logged.length) await store.appendEvents("t1", request.runId, 0, logged, false);
  const { handle, other } = twoIsolates(store);
  await (await handle(post(request))).text();
  const whole = await frames(await other(post({ kaboo_connect: { threadId: "t1", runId: request.runId } })));
  return { store, handle, other, request, runId: request.runId, whole };
}

const reattach = async (handle: (r: Request) => Promise<Response>, id: string) =>
  handle(post({ kaboo_connect: { threadId: "t1" } }, { "last-event-id": id }));

describe("a reattach from an event the dead attempt never logged", () => {
  test("gets the run from its RUN_STARTED: the run again's first events and its closers included", async () => {
    const { handle, other, runId, whole } = await ranAgain();
    await verified(whole.map((f) => f.event));
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    expect(JSON.stringify(whole)).toContain("You said: hello");
    for (const n of [5, 6, 7, 8, 9]) {
      for (const h of [handle, other]) {
        const rest = await frames(await reattach(h, `${runId}:${n}`));
        expect(rest).toEqual(whole);
        // The client starts its view of the run over: a fresh verifier (a new HttpAgent run) accepts it.
        await verified(rest.map((f) => f.event));
      }
    }
  });

  test("an attempt that logged nothing: its ids get the run from its RUN_STARTED, and the run again's ids name it", async () => {
    const { handle, other, runId, whole } = await ranAgain({ logged: () => [] });
    await verified(whole.map((f) => f.event));
    expect(whole[1]?.event).toMatchObject({ type: EventType.CUSTOM, name: "kaboo_run_again", value: { attempt: 1 } });
    expect(whole.map((f) => f.id)).toEqual(whole.map((_, i) => (i === 0 ? `${runId}:0` : `${runId}:${i}.1`)));
    for (const h of [handle, other]) {
      // Its RUN_STARTED is the run's: from it, the rest.
      expect(await frames(await reattach(h, `${runId}:0`))).toEqual(whole.slice(1));
      // Anything else it sent was never logged: the run again took those indexes.
      for (const n of [1, 3, 9]) expect(await frames(await reattach(h, `${runId}:${n}`))).toEqual(whole);
    }
  });

  test("from a logged event, or one of the run again's, exactly the rest; the run again's ids name it", async () => {
    const { handle, other, runId, whole } = await ranAgain();
    expect(whole.slice(0, LOGGED).map((f) => f.id)).toEqual([0, 1, 2, 3, 4].map((i) => `${runId}:${i}`));
    expect(whole.slice(LOGGED).map((f) => f.id)).toEqual(whole.slice(LOGGED).map((_, i) => `${runId}:${LOGGED + i}.1`));
    expect(whole[LOGGED]?.event).toMatchObject({
      type: EventType.CUSTOM,
      name: "kaboo_run_again",
      value: { attempt: 1 },
    });
    const seen = sent(runId) as unknown as BaseEvent[];
    for (const [n, f] of whole.entries()) {
      for (const h of [handle, other]) {
        const rest = await frames(await reattach(h, f.id as string));
        expect(rest).toEqual(whole.slice(n + 1));
        if (n < LOGGED) await verified([...seen.slice(0, n + 1), ...rest.map((r) => r.event)]);
        // The body says the same with `after` and `attempt`.
        const ask = { threadId: "t1", runId, after: n, attempt: n < LOGGED ? 0 : 1 };
        expect(await frames(await h(post({ kaboo_connect: ask })))).toEqual(whole.slice(n + 1));
      }
    }
    for (const h of [handle, other]) {
      expect(await frames(await h(post({ kaboo_connect: { threadId: "t1", runId, after: 7 } })))).toEqual(whole);
      const res = await h(post({ kaboo_connect: { threadId: "t1", runId, after: LOGGED - 1, attempt: 1 } }));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_connect" });
    }
  });

  test("forged ids are 400: an attempt before its start, an attempt never run, an index beyond the end", async () => {
    const { handle, other, runId, whole } = await ranAgain();
    const bad = [
      `${runId}:${LOGGED - 1}.1`,
      `${runId}:${LOGGED}.2`,
      `${runId}:${LOGGED}.99`,
      `${runId}:${whole.length}.1`,
      `${runId}:${whole.length + 1e6}.1`,
      `${runId}:${LOGGED}.0`,
      `${runId}:${LOGGED}.01`,
      `${runId}:${LOGGED}.`,
      `${runId}:.1`,
      `${runId}:${LOGGED}.1.1`,
      `${runId}:${LOGGED}.9007199254740993`,
    ];
    for (const id of bad) {
      for (const h of [handle, other]) {
        const res = await reattach(h, id);
        expect(res.status, id).toBe(400);
        expect(await res.json()).toMatchObject({ error: "invalid_last_event_id" });
      }
    }
    // A header cannot carry CR or LF; a parsed id never holds one either.
    for (const id of [`${runId}:5\n.1`, `${runId}:5.1\r`, `${runId}:5.\r\n1`]) expect(parseEventId(id)).toBeUndefined();
    expect(parseEventId(`${runId}:7.1`)).toEqual({ runId, index: 7, attempt: 1 });
    expect(parseEventId(`${runId}:7`)).toEqual({ runId, index: 7, attempt: 0 });
  });

  test("a reattach in this isolate while the run again is still taking its thread waits for where it goes on", async () => {
    const store = new MemoryThreadStore();
    const request = input({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "hello" }] });
    const lease = { token: "dead", runId: request.runId, resume: false, expiresAt: Date.now() - 1 };
    const record = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: at };
    expect(await store.compareAndSet("t1", 0, record)).toBe(true);
    await store.appendEvents("t1", request.runId, 0, sent(request.runId).slice(0, LOGGED), false);
    // The run again's lease write waits until the reattach below is in.
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    let taking = () => {};
    const took = new Promise<void>((r) => (taking = r));
    const slow: ThreadStore = {
      ...elsewhere(store),
      compareAndSet: async (t, v, d) => {
        if (d.lease && d.lease.token !== "dead") {
          taking();
          await gate;
        }
        return store.compareAndSet(t, v, d);
      },
    };
    const handle = createAguiHandler({ stores: { thread: slow }, agent: echo, logger: quietLogger() });
    const own = handle(post(request)).then((r) => r.text());
    await took;
    const early = reattach(handle, `${request.runId}:8`);
    const logged = reattach(handle, `${request.runId}:3`);
    await new Promise((r) => setTimeout(r, 20));
    open();
    await own;
    const whole = await frames(await handle(post({ kaboo_connect: { threadId: "t1", runId: request.runId } })));
    expect(whole[LOGGED]?.event).toMatchObject({ type: EventType.CUSTOM, name: "kaboo_run_again" });
    expect(await frames(await early)).toEqual(whole);
    expect(await frames(await logged)).toEqual(whole.slice(4));
  });

  test("a run again that died too: its ids of its own unlogged tail, and the first attempt's, get the run from its start", async () => {
    // Attempt 0 logged five events; attempt 1 logged its marker, its END events and a new message's start.
    const second: JsonValue[] = [
      { type: EventType.CUSTOM, name: "kaboo_run_again", value: { attempt: 1 }, timestamp: at },
      { type: EventType.TOOL_CALL_END, toolCallId: "c1", timestamp: at },
      { type: EventType.TEXT_MESSAGE_END, messageId: "m1", timestamp: at },
      { type: EventType.TEXT_MESSAGE_START, messageId: "m3", role: "assistant", timestamp: at },
    ];
    const { handle, other, request, whole } = await ranAgain({
      lease: { token: "dead-again" },
      logged: (runId) => [...sent(runId).slice(0, LOGGED), ...second],
    });
    await verified(whole.map((f) => f.event));
    const again = LOGGED + second.length;
    expect(whole[again]?.event).toMatchObject({ type: EventType.CUSTOM, value: { attempt: 2 } });
    expect(whole[again + 1]?.event).toMatchObject({ type: EventType.TEXT_MESSAGE_END, messageId: "m3" });
    expect(whole.slice(LOGGED, again).map((f) => f.id)).toEqual([5, 6, 7, 8].map((i) => `${request.runId}:${i}.1`));
    expect(whole[again]?.id).toBe(`${request.runId}:${again}.2`);
    for (const h of [handle, other]) {
      // Unlogged: attempt 1's events from its marker's index on the run again's, attempt 0's after its log.
      for (const id of [`${again}.1`, `${again + 3}.1`, "5", "8", `${again + 1}`]) {
        expect(await frames(await reattach(h, `${request.runId}:${id}`)), id).toEqual(whole);
      }
      for (const n of [LOGGED - 1, LOGGED, again - 1, again, again + 1]) {
        expect(await frames(await reattach(h, whole[n]?.id as string))).toEqual(whole.slice(n + 1));
      }
      for (const id of [`${LOGGED - 1}.1`, `${again - 1}.2`, `${again}.3`]) {
        expect((await reattach(h, `${request.runId}:${id}`)).status, id).toBe(400);
      }
    }
  });

  test("a run again that died before its log named it is counted by its lease: the next one is attempt 2", async () => {
    // Attempt 1 took the thread over and died before its first write reached the log; its client holds `:5.1` on.
    const { store, handle, other, request, whole } = await ranAgain({ lease: { token: "dead-1", attempt: 1 } });
    expect(whole[LOGGED]?.event).toMatchObject({ type: EventType.CUSTOM, value: { attempt: 2 } });
    expect(whole[LOGGED]?.id).toBe(`${request.runId}:${LOGGED}.2`);
    for (const h of [handle, other]) {
      for (const id of [`${LOGGED}.1`, `${LOGGED + 2}.1`, `${LOGGED + 1}`]) {
        expect(await frames(await reattach(h, `${request.runId}:${id}`)), id).toEqual(whole);
      }
      expect(await frames(await reattach(h, whole[LOGGED + 1]?.id as string))).toEqual(whole.slice(LOGGED + 2));
    }
    expect((await store.load("t1")).lease).toBeNull();
  });

  test("an isolate whose attempt lost the thread (frozen past its hold) reads a run again's ids from the log", async () => {
    const store = new MemoryThreadStore();
    const request = input({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "hello" }] });
    let frozen = false;
    const stuck: ThreadStore = {
      ...elsewhere(store),
      // Frozen: its lease renewals never land (its writes to the log are cut once another run holds the thread).
      compareAndSet: async (t, v, d) => (frozen ? new Promise<boolean>(() => {}) : store.compareAndSet(t, v, d)),
    };
    const slow = () =>
      new Agent({
        model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(60) }), chunkSize: 4, delayMs: 10 }),
      });
    const quick = echo;
    const a = createAguiHandler({
      stores: { thread: stuck },
      agent: slow,
      logger: quietLogger(),
      timing: { runLeaseMs: 200 },
    });
    const b = createAguiHandler({
      stores: { thread: elsewhere(store) },
      agent: quick,
      logger: quietLogger(),
      timing: { runLeaseMs: 200 },
    });
    const first = a(post(request)).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 100));
    frozen = true;
    await new Promise((r) => setTimeout(r, 400));
    await (await b(post(request))).text();
    const whole = await frames(await b(post({ kaboo_connect: { threadId: "t1", runId: request.runId } })));
    const again = whole.findIndex((f) => f.event.type === EventType.CUSTOM);
    expect(again).toBeGreaterThan(0);
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    for (const n of [again, again + 1, whole.length - 2]) {
      expect(await frames(await reattach(a, whole[n]?.id as string))).toEqual(whole.slice(n + 1));
    }
    expect((await reattach(a, `${request.runId}:${again}.2`)).status).toBe(400);
    void first;
  }, 20_000);
});
