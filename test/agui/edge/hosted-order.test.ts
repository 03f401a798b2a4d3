/**
 * The order of a run hosted in its thread's Durable Object, at the handler (the object's side is
 * in test/runtimes/hosted-first-byte.test.ts): RUN_STARTED reaches the response before the run
 * writes anything; the lease, then in the same turn the object's own record (`taken`), are written
 * after it; a second run meanwhile is refused; a refused run has the object keep nothing.
 */
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import { onHostedRun } from "../../../src/stores/hosted-request.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";

const agent = () => new Agent({ model: new ScriptedModel({ script: () => ({ text: "hi" }) }) });
const body = (threadId: string, text: string) =>
  JSON.stringify({
    threadId,
    runId: crypto.randomUUID(),
    messages: [{ id: crypto.randomUUID(), role: "user", content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });

/** A store that notes each write, and a hosted request whose first write waits for `go`. */
function setup() {
  const memory = new MemoryThreadStore();
  const writes: string[] = [];
  const store: ThreadStore = {
    load: (t) => memory.load(t),
    compareAndSet: (t, v, d) => {
      writes.push(d.lease ? "lease" : "release");
      return memory.compareAndSet(t, v, d);
    },
    ledger: (t) => memory.ledger(t),
    appendEvents: (...a) => {
      writes.push("log");
      return memory.appendEvents(...a);
    },
    readEvents: (...a) => memory.readEvents(...a),
    compactEvents: (...a) => memory.compactEvents(...a),
  };
  const handle = createAguiHandler({ stores: { thread: store }, agent, logger: { warn: () => {}, error: () => {} } });
  const hosted = (text: string, threadId = "t") => {
    const request = new Request("http://edge/agui", { method: "POST", body: body(threadId, text) });
    let go = () => {};
    const gate = new Promise<void>((resolve) => (go = resolve));
    const taken: (string | null)[] = [];
    onHostedRun(request, {
      beforeFirstWrite: () => gate,
      // What the store holds when the object keeps its record: the lease, already written.
      taken: () => taken.push(writes.at(-1) ?? null),
    });
    return { request, go, taken };
  };
  return { handle, hosted, writes, memory };
}

async function events(res: Response): Promise<{ type: string; code?: string }[]> {
  const out: { type: string; code?: string }[] = [];
  createParser({ onEvent: (m) => out.push(JSON.parse(m.data)) }).feed(await res.text());
  return out;
}

describe("a hosted run's order at the handler", () => {
  test("RUN_STARTED is read before anything is written; the lease and the object's record follow, in that order", async () => {
    const { handle, hosted, writes } = setup();
    const a = hosted("hello");
    const res = await handle(a.request);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"RUN_STARTED"');
    expect(first).not.toContain("TEXT_MESSAGE");
    await new Promise((r) => setTimeout(r, 20));
    expect(writes).toEqual([]);
    a.go();
    while (!(await reader.read()).done);
    expect(writes[0]).toBe("lease");
    expect(a.taken).toEqual(["lease"]);
  });

  test("a second run while the first has not written its lease is refused THREAD_BUSY, and the object keeps nothing of it", async () => {
    const { handle, hosted, memory } = setup();
    const a = hosted("hello");
    const running = handle(a.request).then(events);
    await new Promise((r) => setTimeout(r, 5));
    const b = hosted("hello again");
    b.go();
    const refused = await events(await handle(b.request));
    expect(refused.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(refused[1]?.code).toBe("THREAD_BUSY");
    expect(b.taken).toEqual([]);
    a.go();
    expect((await running).at(-1)?.type).toBe("RUN_FINISHED");
    expect((await memory.load("t")).messages).toHaveLength(2);
  });

  test("a resume refused before it takes the thread (unknown interrupt) writes nothing and keeps nothing", async () => {
    const { handle, hosted, writes } = setup();
    const r = hosted("x");
    const request = new Request(r.request.url, {
      method: "POST",
      body: JSON.stringify({
        ...JSON.parse(body("t", "x")),
        resume: [{ interruptId: "nope", status: "resolved", payload: {} }],
      }),
    });
    onHostedRun(request, { beforeFirstWrite: async () => {}, taken: () => r.taken.push("taken") });
    const refused = await events(await handle(request));
    expect(refused.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(writes).toEqual([]);
    expect(r.taken).toEqual([]);
  });
});

/** A store whose reads of the thread wait until `open()`, counted. */
function gatedReads() {
  const base = setup();
  let loads = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const store: ThreadStore = {
    load: async (t) => {
      loads++;
      await opened;
      return base.memory.load(t);
    },
    compareAndSet: (t, v, d) => base.memory.compareAndSet(t, v, d),
    ledger: (t) => base.memory.ledger(t),
    appendEvents: (...a) => base.memory.appendEvents(...a),
    readEvents: (...a) => base.memory.readEvents(...a),
    compactEvents: (...a) => base.memory.compactEvents(...a),
  };
  const handle = createAguiHandler({ stores: { thread: store }, agent, logger: { warn: () => {}, error: () => {} } });
  return { ...base, handle, open, loads: () => loads };
}

const post = (payload: unknown) => new Request("http://edge/agui", { method: "POST", body: JSON.stringify(payload) });

describe("a hosted run begins once its response took RUN_STARTED", () => {
  test("the run reads its thread only after the response's reader took RUN_STARTED", async () => {
    const { handle, hosted, open, loads } = gatedReads();
    const a = hosted("hello");
    a.go();
    open();
    const res = await handle(a.request);
    await new Promise((r) => setTimeout(r, 5));
    // Nothing of the run's work came before the first byte: the thread was not even read.
    expect(loads()).toBe(0);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"RUN_STARTED"');
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(loads()).toBeGreaterThan(0);
    expect(rest).not.toContain('"RUN_STARTED"');
    expect(rest).toContain('"RUN_FINISHED"');
  });

  test("a response nobody reads does not hold the run: it begins anyway, and runs to its end", async () => {
    const { handle, hosted, open, loads, memory } = gatedReads();
    const a = hosted("hello");
    a.go();
    open();
    await handle(a.request);
    await new Promise((r) => setTimeout(r, 100));
    expect(loads()).toBeGreaterThan(0);
    expect(a.taken).toHaveLength(1);
    const record = await memory.load("t");
    expect(record.messages).toHaveLength(2);
    expect(record.lease).toBeNull();
  });

  test("a Stop and a reattach that come after RUN_STARTED, before the run read its thread, wait for it: the Stop stops it", async () => {
    const { handle, hosted, open, loads } = gatedReads();
    const a = hosted("hello");
    a.go();
    const res = await handle(a.request);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"RUN_STARTED"');
    // The run has begun and waits for its read of the thread.
    while (loads() === 0) await new Promise((r) => setTimeout(r, 1));
    const stopping = handle(post({ kaboo_cancel: { threadId: "t" } }));
    const watching = handle(post({ kaboo_connect: { threadId: "t" } }));
    await new Promise((r) => setTimeout(r, 10));
    open();
    const stopped = await stopping;
    expect(stopped.status).toBe(202);
    const watched = await watching;
    expect(watched.status).toBe(200);
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    const seen = await events(watched);
    expect(seen[0]?.type).toBe("RUN_STARTED");
    expect(JSON.stringify(seen.at(-1))).toContain('"cancelled"');
    expect(rest).toContain('"cancelled"');
  });
});
