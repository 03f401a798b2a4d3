/**
 * A reattach to a run that died and was given up, not run again (PostgresRunHost's sweeper out of
 * attempts or refused; the Durable Object's alarm refused): its log is what the dead attempt logged,
 * then a RUN_ERROR `RUN_NOT_RESUMED`. A live client read up to a batch more than the log has, so it
 * may hold ids of events the log never had: from such an id it gets the run from its RUN_STARTED to
 * that error (what it held is void), not a 400 nor an empty stream. From the error's own id it gets
 * nothing more (the run ended); from a logged id, the rest. An id no attempt sent is still a 400.
 * On the memory store (the log as a give-up leaves it) and on PGlite through the sweeper's own give-up.
 */
import { PGlite } from "@electric-sql/pglite";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import type { JsonValue } from "../../../src/agent/messages/messages.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import {
  fromPglite,
  migrate,
  PostgresRunHost,
  PostgresThreadStore,
  RunNotResumedError,
} from "../../../src/stores/postgres.js";
import { elsewhere, post, quietLogger } from "./fixtures.js";

interface Frame {
  id: string | undefined;
  event: BaseEvent & { code?: string };
}

async function frames(res: Response): Promise<Frame[]> {
  expect(res.status).toBe(200);
  const out: Frame[] = [];
  createParser({ onEvent: (m) => out.push({ id: m.id, event: JSON.parse(m.data) as Frame["event"] }) }).feed(
    await res.text(),
  );
  return out;
}

const echo = () =>
  new Agent({ model: new ScriptedModel({ script: ({ lastUserText }) => ({ text: `You said: ${lastUserText}` }) }) });

const at = Date.now();
/** What the dead attempt sent: the first LOGGED reached the log, the rest its client read live only. */
const sent = (runId: string): JsonValue[] => [
  { type: EventType.RUN_STARTED, threadId: "t1", runId, timestamp: at },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", timestamp: at },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Paying ", timestamp: at },
  { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "transfer", parentMessageId: "m1", timestamp: at },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"to":', timestamp: at },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '"bob"}', timestamp: at },
  { type: EventType.TOOL_CALL_END, toolCallId: "c1", timestamp: at },
];
const LOGGED = 5;
/** The give-up's RUN_ERROR as a host that names no attempt in it writes it. */
const notResumed: JsonValue = {
  type: EventType.RUN_ERROR,
  message: "The run died with its Durable Object and was refused when run again (x); send it again.",
  code: "RUN_NOT_RESUMED",
  timestamp: at,
};

type Handle = (r: Request) => Promise<Response>;
const reattach = (h: Handle, id: string) => h(post({ kaboo_connect: { threadId: "t1" } }, { "last-event-id": id }));
const fromStart = (h: Handle, runId: string) => h(post({ kaboo_connect: { threadId: "t1", runId } }));

/** A thread whose run died with LOGGED events in its log; `gaveUp` frees it and ends its log as a host's give-up does. */
async function deadRun() {
  const store = new MemoryThreadStore();
  const runId = crypto.randomUUID();
  const lease = { token: "dead", runId, resume: false, expiresAt: Date.now() - 1 };
  const record = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: at };
  expect(await store.compareAndSet("t1", 0, record)).toBe(true);
  await store.appendEvents("t1", runId, 0, sent(runId).slice(0, LOGGED), false);
  const gaveUp = async () => {
    expect(await store.compareAndSet("t1", 1, { ...record, lease: null })).toBe(true);
    await store.appendEvents("t1", runId, LOGGED, [notResumed], true);
  };
  const handlers = [store, elsewhere(store)].map((thread) =>
    createAguiHandler({ stores: { thread }, agent: echo, logger: quietLogger() }),
  );
  return { store, runId, gaveUp, handlers };
}

describe("a reattach to a run that was given up (memory store)", () => {
  test("from an id the dead attempt never logged: the run from its RUN_STARTED, ending in RUN_NOT_RESUMED", async () => {
    const { runId, gaveUp, handlers } = await deadRun();
    await gaveUp();
    for (const h of handlers) {
      const whole = await frames(await fromStart(h, runId));
      expect(whole.map((f) => f.event.type)).toEqual([
        ...sent(runId)
          .slice(0, LOGGED)
          .map((e) => (e as { type: string }).type),
        "RUN_ERROR",
      ]);
      expect(whole.at(-1)?.event.code).toBe("RUN_NOT_RESUMED");
      for (const n of [LOGGED, LOGGED + 1, LOGGED + 2, 40]) {
        expect(await frames(await reattach(h, `${runId}:${n}`)), String(n)).toEqual(whole);
      }
      // The body says the same.
      const ask = { threadId: "t1", runId, after: LOGGED + 1 };
      expect(await frames(await h(post({ kaboo_connect: ask })))).toEqual(whole);
    }
  });

  test("from the RUN_NOT_RESUMED event's own id: nothing more, and that id names the give-up apart", async () => {
    const { runId, gaveUp, handlers } = await deadRun();
    await gaveUp();
    for (const h of handlers) {
      const whole = await frames(await fromStart(h, runId));
      const end = whole.at(-1) as Frame;
      expect(end.id).toBe(`${runId}:${LOGGED}.1`);
      expect(await frames(await reattach(h, end.id as string))).toEqual([]);
      const ask = { threadId: "t1", runId, after: LOGGED, attempt: 1 };
      expect(await frames(await h(post({ kaboo_connect: ask })))).toEqual([]);
    }
  });

  test("from a logged id of the dead attempt: exactly the rest, ending in RUN_NOT_RESUMED", async () => {
    const { runId, gaveUp, handlers } = await deadRun();
    await gaveUp();
    for (const h of handlers) {
      const whole = await frames(await fromStart(h, runId));
      expect(whole.slice(0, LOGGED).map((f) => f.id)).toEqual([0, 1, 2, 3, 4].map((i) => `${runId}:${i}`));
      for (let n = 0; n < LOGGED; n++) {
        const rest = await frames(await reattach(h, `${runId}:${n}`));
        expect(rest).toEqual(whole.slice(n + 1));
        expect(rest.at(-1)?.event.code).toBe("RUN_NOT_RESUMED");
      }
    }
  });

  test("forged ids are 400: an attempt never run, the give-up's before its place or beyond the end, malformed", async () => {
    const { runId, gaveUp, handlers } = await deadRun();
    await gaveUp();
    const bad = [
      `${runId}:${LOGGED}.2`,
      `${runId}:${LOGGED}.99`,
      `${runId}:${LOGGED - 1}.1`,
      `${runId}:${LOGGED + 1}.1`,
      `${runId}:${LOGGED + 1e6}.1`,
      `${runId}:${LOGGED}.0`,
      `${runId}:${LOGGED}.`,
      `${runId}:x`,
    ];
    for (const h of handlers) {
      for (const id of bad) {
        const res = await reattach(h, id);
        expect(res.status, id).toBe(400);
        expect(await res.json()).toMatchObject({ error: "invalid_last_event_id" });
      }
    }
  });

  test("a client that reattached from an unlogged id before the give-up gets the run from its start once it comes", async () => {
    const { runId, gaveUp, handlers } = await deadRun();
    const [here, other] = handlers as [Handle, Handle];
    const waiting = [reattach(here, `${runId}:${LOGGED + 1}`), reattach(other, `${runId}:${LOGGED}`)];
    const logged = reattach(other, `${runId}:${LOGGED - 2}`);
    await new Promise((r) => setTimeout(r, 300));
    await gaveUp();
    const whole = await frames(await fromStart(other, runId));
    expect(whole.at(-1)?.event.code).toBe("RUN_NOT_RESUMED");
    for (const w of waiting) expect(await frames(await w)).toEqual(whole);
    expect(await frames(await logged)).toEqual(whole.slice(LOGGED - 1));
  });

  test("a run that finished: an index beyond its end is still a 400", async () => {
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ stores: { thread: store }, agent: echo, logger: quietLogger() });
    const request = {
      threadId: "t1",
      runId: crypto.randomUUID(),
      messages: [{ id: "u1", role: "user", content: "hi" }],
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
    };
    await (await handle(post(request))).text();
    const whole = await frames(await fromStart(handle, request.runId));
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    expect(await frames(await reattach(handle, whole.at(-1)?.id as string))).toEqual([]);
    for (const id of [`${whole.length}`, `${whole.length + 5}`, `${whole.length - 1}.1`]) {
      expect((await reattach(handle, `${request.runId}:${id}`)).status, id).toBe(400);
    }
  });
});

describe("a reattach to a run PostgresRunHost's sweeper gave up (PGlite)", () => {
  let ready: ReturnType<typeof start> | undefined;
  const start = () =>
    PGlite.create().then(async (pglite) => {
      const db = fromPglite(pglite);
      await migrate(db);
      const store = new PostgresThreadStore(db);
      return {
        db,
        store,
        handle: createAguiHandler({ stores: { thread: store }, agent: echo, logger: quietLogger() }),
      };
    });

  /** A thread `t1`-like one whose run died holding it (attempt `attempt`), with `logged` in its log; swept once. */
  async function sweptDead(logged: (runId: string) => JsonValue[], attempt: number, maxAttempts: number) {
    const { db, store, handle } = await (ready ??= start());
    const threadId = `t-${crypto.randomUUID()}`;
    const runId = crypto.randomUUID();
    const token = crypto.randomUUID();
    const lease = { token, runId, resume: false, expiresAt: Date.now() - 2000, ...(attempt ? { attempt } : {}) };
    const data = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: 0 };
    expect(await store.compareAndSet(threadId, 0, data)).toBe(true);
    await store.appendEvents(threadId, runId, 0, logged(runId), false, { token });
    await db.query(
      "INSERT INTO kaboo_hosted_runs (thread_id, run_id, token, url, body, principal, kept_at) VALUES ($1, $2, $3, 'http://node.test/agui', '{}', NULL, 0)",
      [threadId, runId, token],
    );
    const host = new PostgresRunHost(db, {
      handler: async () => Response.json({ error: "refused" }, { status: 409 }),
      leaseMs: 1000,
      maxAttempts,
      logger: quietLogger(),
    });
    expect((await host.sweep()).gaveUp).toEqual([threadId]);
    expect((await store.load(threadId)).lease).toBeNull();
    const ask = (id: string) => handle(post({ kaboo_connect: { threadId } }, { "last-event-id": id }));
    const whole = await frames(await handle(post({ kaboo_connect: { threadId, runId } })));
    expect(whole.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "RUN_NOT_RESUMED" });
    return { runId, ask, whole };
  }

  test("a first attempt given up: unlogged ids get the run from its start, the error's own id nothing, forged ones 400", async () => {
    const { runId, ask, whole } = await sweptDead((r) => sent(r).slice(0, LOGGED), 0, 0);
    expect(whole).toHaveLength(LOGGED + 1);
    expect(whole.at(-1)?.id).toBe(`${runId}:${LOGGED}.1`);
    for (const n of [LOGGED, LOGGED + 1, LOGGED + 9]) expect(await frames(await ask(`${runId}:${n}`))).toEqual(whole);
    for (const n of [0, LOGGED - 1]) expect(await frames(await ask(`${runId}:${n}`))).toEqual(whole.slice(n + 1));
    expect(await frames(await ask(`${runId}:${LOGGED}.1`))).toEqual([]);
    for (const id of [`${LOGGED}.2`, `${LOGGED + 1}.1`, `${LOGGED + 1e6}.1`, `${LOGGED - 1}.1`]) {
      expect((await ask(`${runId}:${id}`)).status, id).toBe(400);
    }
  });

  test("a run again that died before its marker reached the log, out of attempts: its ids get the run from its start", async () => {
    // Attempt 1 logged its marker and an END; attempt 2 took the thread and died before its marker landed.
    const second = (r: string): JsonValue[] => [
      ...sent(r).slice(0, LOGGED),
      { type: EventType.CUSTOM, name: "kaboo_run_again", value: { attempt: 1 }, timestamp: at },
      { type: EventType.TOOL_CALL_END, toolCallId: "c1", timestamp: at },
    ];
    const { runId, ask, whole } = await sweptDead(second, 2, 2);
    const g = LOGGED + 2;
    expect(whole).toHaveLength(g + 1);
    // Numbered after every attempt that held the thread: attempt 2's client may hold `:7.2`.
    expect(whole.at(-1)?.id).toBe(`${runId}:${g}.3`);
    for (const id of [`${g}.2`, `${g + 4}.2`, `${g}.1`, `${g}`])
      expect(await frames(await ask(`${runId}:${id}`)), id).toEqual(whole);
    expect(await frames(await ask(`${runId}:${g - 1}.1`))).toEqual(whole.slice(g));
    expect(await frames(await ask(`${runId}:${g}.3`))).toEqual([]);
    for (const id of [`${g}.4`, `${g + 1}.3`, `${g - 1}.3`]) expect((await ask(`${runId}:${id}`)).status, id).toBe(400);
  });
});

describe("a run's own RUN_ERROR RUN_NOT_RESUMED", () => {
  test("has the same id live (its hub) as read back from the log, and a reattach from it gets nothing more", async () => {
    const store = new MemoryThreadStore();
    const failing = () =>
      new Agent({
        model: new ScriptedModel({
          script: () => {
            throw new RunNotResumedError("the remote run it waited on was given up");
          },
        }),
      });
    const [here, other] = [store, elsewhere(store)].map((thread) =>
      createAguiHandler({ stores: { thread }, agent: failing, logger: quietLogger() }),
    ) as [Handle, Handle];
    const runId = crypto.randomUUID();
    const request = { threadId: "t1", runId, messages: [{ id: "u1", role: "user", content: "hi" }] };
    const live = await frames(await here(post({ ...request, state: {}, tools: [], context: [], forwardedProps: {} })));
    expect(live.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "RUN_NOT_RESUMED" });
    const logged = await frames(await fromStart(other, runId));
    expect(logged.map((f) => f.id)).toEqual(live.map((f) => f.id));
    for (const h of [here, other]) expect(await frames(await reattach(h, live.at(-1)?.id as string))).toEqual([]);
  });
});
