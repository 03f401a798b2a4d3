/**
 * Reattach: every event of a stored run has an SSE id (`<runId>:<n>`); a client that lost the
 * stream after any event and reconnects (Last-Event-ID, or `kaboo_connect`) gets exactly the events
 * it missed, then the live tail. Two clients of one principal watch one run; anyone else is refused.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { elsewhere, post, quietLogger, send } from "./fixtures.js";
import { input } from "../helpers.js";
import { readFrames } from "./disconnect-scenario.js";

function storyHandler(principal?: (r: Request) => string) {
  const store = new MemoryThreadStore();
  const agent = () =>
    new Agent({
      model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(30) }), chunkSize: 8, delayMs: 2 }),
    });
  return {
    store,
    handle: createAguiHandler({
      stores: { thread: store },
      agent,
      logger: quietLogger(),
      ...(principal ? { trust: { principal } } : {}),
    }),
  };
}

const story = (threadId: string) =>
  input({ threadId, messages: [{ id: `u-${threadId}`, role: "user", content: "a story" }] });

describe("reattach to a stored run", () => {
  test("a client that drops after event k gets exactly events k+1… on reconnect, for every k", async () => {
    const { handle } = storyHandler();
    const whole = await readFrames(await handle(post(story("ref"))));
    expect(whole.at(-1)?.data.type).toBe(EventType.RUN_FINISHED);
    expect(whole.every((f) => f.id !== undefined)).toBe(true);
    const n = whole.length;
    for (const k of [1, 2, Math.floor(n / 2), n - 1]) {
      const threadId = `t${k}`;
      const first = await readFrames(await handle(post(story(threadId))), k);
      const last = first.at(-1)!.id!;
      const rest = await readFrames(await handle(post({ kaboo_connect: { threadId } }, { "last-event-id": last })));
      const types = [...first, ...rest].map((f) => f.data.type);
      expect(types).toEqual(whole.map((f) => f.data.type));
      const ids = [...first, ...rest].map((f) => f.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  test("kaboo_connect without an id streams the run from its start; two watchers see the same events", async () => {
    const { handle } = storyHandler();
    const res = await handle(post(story("t")));
    const reader = res.body!.getReader();
    const head = new TextDecoder().decode((await reader.read()).value);
    // The run has taken the thread once its first event is out.
    expect(head).toContain("RUN_STARTED");
    const rest = new Response(
      new ReadableStream({
        async pull(c) {
          const { done, value } = await reader.read();
          if (done) c.close();
          else c.enqueue(value);
        },
      }),
    );
    const [a, b] = await Promise.all([
      handle(post({ kaboo_connect: { threadId: "t" } })).then((r) => readFrames(r)),
      handle(post({ kaboo_connect: { threadId: "t", after: -1 } })).then((r) => readFrames(r)),
    ]);
    const tail = await readFrames(rest);
    const own = [...(await readFrames(new Response(head))), ...tail];
    expect(a.map((f) => f.id)).toEqual(own.map((f) => f.id));
    expect(b.map((f) => f.id)).toEqual(own.map((f) => f.id));
  });

  test("another person cannot watch; a thread with no run answers 404; a malformed id is a 400", async () => {
    const { handle } = storyHandler((r) => r.headers.get("x-user") ?? "");
    await send(handle, story("t"), { "x-user": "ann" });
    expect((await handle(post({ kaboo_connect: { threadId: "t" } }, { "x-user": "bob" }))).status).toBe(403);
    expect((await handle(post({ kaboo_connect: { threadId: "none" } }, { "x-user": "ann" }))).status).toBe(404);
    const bad = await handle(post({ kaboo_connect: { threadId: "t" } }, { "x-user": "ann", "last-event-id": "nope" }));
    expect(bad.status).toBe(400);
  });
});

describe("reattach from the thread's event log", () => {
  test("a client that drops and reconnects to another isolate gets exactly the missed events, live and after the end", async () => {
    const { store, handle } = storyHandler();
    const other = createAguiHandler({
      stores: { thread: elsewhere(store) },
      agent: () => new Agent({ model: new ScriptedModel({ script: () => ({ text: "x" }) }) }),
      logger: quietLogger(),
    });
    const whole = await readFrames(await handle(post(story("ref"))));
    for (const k of [1, 3, whole.length - 2]) {
      const threadId = `log${k}`;
      const first = await readFrames(await handle(post(story(threadId))), k);
      const rest = await readFrames(
        await other(post({ kaboo_connect: { threadId } }, { "last-event-id": first.at(-1)!.id! })),
      );
      expect([...first, ...rest].map((f) => f.data.type)).toEqual(whole.map((f) => f.data.type));
      expect([...first, ...rest].map((f) => f.id)).toEqual(whole.map((_, i) => `${first[0]!.id!.split(":")[0]}:${i}`));
    }
  });

  test("the log is written in a few batches, not one write per event", async () => {
    const { store } = storyHandler();
    let writes = 0;
    const counted = elsewhere(store);
    const append = counted.appendEvents!;
    counted.appendEvents = (...a) => {
      writes++;
      return append(...a);
    };
    const h = createAguiHandler({
      stores: { thread: counted },
      agent: () =>
        new Agent({ model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(30) }), chunkSize: 8 }) }),
      logger: quietLogger(),
    });
    const events = await readFrames(await h(post(story("w"))));
    expect(events.length).toBeGreaterThan(40);
    expect(writes).toBeLessThanOrEqual(4);
    expect((await store.readEvents("w", events[0]!.id!.split(":")[0]!, -1))?.events).toHaveLength(events.length);
  });
});
