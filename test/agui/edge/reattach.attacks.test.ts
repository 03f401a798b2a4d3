/**
 * Reattach attacked: a Last-Event-ID naming another person's run (while the body names one's own
 * thread), a forged huge, negative or non-numeric index; the same in another isolate, which reads
 * the thread's event log.
 */
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { input } from "../helpers.js";
import { elsewhere, post, quietLogger, send } from "./fixtures.js";

async function frames(res: Response): Promise<{ id: string | undefined; data: { type: string; delta?: string } }[]> {
  const out: { id: string | undefined; data: { type: string; delta?: string } }[] = [];
  createParser({ onEvent: (m) => out.push({ id: m.id, data: JSON.parse(m.data) }) }).feed(await res.text());
  return out;
}

function setup() {
  const store = new MemoryThreadStore();
  const agent = () =>
    new Agent({
      model: new ScriptedModel({ script: ({ lastUserText }) => ({ text: `story of ${lastUserText}` }), chunkSize: 4 }),
    });
  const principal = (r: Request) => r.headers.get("x-user") ?? "";
  const handle = createAguiHandler({ stores: { thread: store }, agent, logger: quietLogger(), trust: { principal } });
  const other = createAguiHandler({
    stores: { thread: elsewhere(store) },
    agent,
    logger: quietLogger(),
    trust: { principal },
  });
  return { store, handle, other };
}

const say = (threadId: string, text: string, runId: string = crypto.randomUUID()) =>
  input({ threadId, runId, messages: [{ id: crypto.randomUUID(), role: "user", content: text }] });

const text = (f: { data: { type: string; delta?: string } }[]) =>
  f
    .filter((x) => x.data.type === "TEXT_MESSAGE_CONTENT")
    .map((x) => x.data.delta)
    .join("");

describe("reattach, attacked", () => {
  test("a Last-Event-ID of another person's run, with one's own thread in the body, reads nothing of it", async () => {
    const s = setup();
    const victim = say("victim", "secret plans", "run-v");
    await send(s.handle, victim, { "x-user": "ann" });
    await send(s.handle, say("mine", "hello"), { "x-user": "eve" });
    for (const handle of [s.handle, s.other]) {
      const res = await handle(
        post({ kaboo_connect: { threadId: "mine" } }, { "x-user": "eve", "last-event-id": "run-v:0" }),
      );
      const got = res.status === 200 ? text(await frames(res)) : "";
      expect(got).not.toContain("secret");
      const direct = await handle(post({ kaboo_connect: { threadId: "victim", runId: "run-v" } }, { "x-user": "eve" }));
      expect(direct.status).toBe(403);
    }
  });

  test("forged indexes: negative and non-numeric are 400; a huge one gets nothing more once the run has ended", async () => {
    const s = setup();
    await send(s.handle, say("t", "a", "r1"), { "x-user": "ann" });
    const ann = { "x-user": "ann" };
    for (const id of ["r1:-1", "r1:-5", "r1:1e3", "r1:", "r1:0x10", "r1:9007199254740993"]) {
      expect((await s.handle(post({ kaboo_connect: { threadId: "t" } }, { ...ann, "last-event-id": id }))).status).toBe(
        400,
      );
    }
    for (const after of [-2, 1.5]) {
      expect((await s.handle(post({ kaboo_connect: { threadId: "t", after } }, ann))).status).toBe(400);
    }
    for (const handle of [s.handle, s.other]) {
      const res = await handle(post({ kaboo_connect: { threadId: "t", runId: "r1", after: 1e12 } }, ann));
      expect(res.status).toBe(200);
      expect(await frames(res)).toEqual([]);
    }
  });

  test("a log that lost its later batches (a failed write): a client reattaching elsewhere gets a terminal event", async () => {
    const store = new MemoryThreadStore();
    let appends = 0;
    const flaky: ThreadStore = {
      ...elsewhere(store),
      appendEvents: async (t, r, f, e, end) => {
        if (++appends > 1) throw new Error("storage unavailable");
        return store.appendEvents(t, r, f, e, end);
      },
    };
    const agent = () =>
      new Agent({ model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(20) }), chunkSize: 4 }) });
    const handle = createAguiHandler({ stores: { thread: flaky }, agent, logger: quietLogger() });
    const other = createAguiHandler({ stores: { thread: elsewhere(store) }, agent, logger: quietLogger() });
    const run = await send(handle, say("t", "go", "r1"));
    expect(run.outcome).toBe("success");
    expect(appends).toBeGreaterThan(1);
    const res = await other(post({ kaboo_connect: { threadId: "t", runId: "r1" } }));
    expect(res.status).toBe(200);
    const got = await frames(res);
    expect(["RUN_FINISHED", "RUN_ERROR"]).toContain(got.at(-1)?.data.type);
  }, 15_000);

  test("a run id used again on the thread is refused before it runs; reattach shows the first run", async () => {
    const s = setup();
    const first = say("t", "alpha", "run-1");
    await send(s.handle, first, { "x-user": "ann" });
    const stored = (await s.store.load("t")).messages as ReturnType<typeof say>["messages"];
    const next = say("t", "beta", "run-1");
    const again = { ...next, messages: [...stored, ...next.messages] };
    const second = await send(s.handle, again, { "x-user": "ann" });
    expect(second.error?.code).toBe("RUN_ID_REUSED");
    const before = await s.store.load("t");
    for (const handle of [s.handle, s.other]) {
      const res = await handle(post({ kaboo_connect: { threadId: "t", runId: "run-1" } }, { "x-user": "ann" }));
      expect(text(await frames(res))).toBe("story of alpha");
    }
    expect((await s.store.load("t")).messages).toEqual(before.messages);
    expect(JSON.stringify(before.messages)).not.toContain("beta");
  });
});
