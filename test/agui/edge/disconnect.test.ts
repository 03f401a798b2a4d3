/**
 * A run belongs to its thread, not to the connection: with a thread store, a client that goes away
 * mid-run does not cancel it. The run goes on to its end or next pause and records what ran; only
 * an explicit Stop (`kaboo_cancel`) cancels, at the next safe point, and a call already executing
 * finishes and is recorded.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { deferred } from "../../agent/helpers.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { post, quietLogger, resumeBody, send } from "./fixtures.js";
import { input } from "../helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bank whose transfer takes `ms` and says when its callback started; the model streams slowly when asked. */
function slowBank(ms: number) {
  const bank = newBank();
  let started = deferred();
  const modelStarted = deferred();
  const agent = () => {
    const model = new ScriptedModel({
      script: ({ lastUserText, lastToolResults }) => {
        if (lastToolResults.length) return { text: "Done." };
        const pay = /pay (\w+) (\d+)/.exec(lastUserText);
        if (pay) return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] };
        modelStarted.resolve();
        return { text: "a long answer ".repeat(40) };
      },
      delayMs: 5,
    });
    return bankAgent(bank, {
      model,
      beforeMoving: async () => {
        started.resolve();
        await sleep(ms);
      },
      gate: { remember: false, agentName: "" },
    });
  };
  return {
    transfers: bank.sent,
    agent,
    started: () => started.promise,
    modelStarted: () => modelStarted.promise,
    reset: () => (started = deferred()),
  };
}

/** Sends `body`, reads until `until` resolves, then drops the connection (the reader goes away). */
async function sendThenDrop(handle: (r: Request) => Promise<Response>, body: unknown, until: Promise<unknown>) {
  const res = await handle(post(body));
  const reader = res.body!.getReader();
  const reading = (async () => {
    for (;;) if ((await reader.read()).done) return;
  })().catch(() => undefined);
  await until;
  await reader.cancel();
  await reading;
}

/** Like {@link sendThenDrop}, but the request's own signal aborts (Deno and Workers with enable_request_signal). */
async function sendThenAbort(handle: (r: Request) => Promise<Response>, body: unknown, until: Promise<unknown>) {
  const controller = new AbortController();
  const request = new Request(post(body), { signal: controller.signal });
  const res = await handle(request);
  const reader = res.body!.getReader();
  const reading = (async () => {
    for (;;) if ((await reader.read()).done) return;
  })().catch(() => undefined);
  await until;
  controller.abort();
  await reader.cancel().catch(() => undefined);
  await reading;
}

async function paused(handle: (r: Request) => Promise<Response>, threadId: string) {
  const turn = await send(
    handle,
    input({ threadId, messages: [{ id: `u-${threadId}`, role: "user", content: "pay alice 5" }] }),
  );
  expect(turn.interrupts).toHaveLength(1);
  return turn;
}

async function until(check: () => boolean | Promise<boolean>, ms = 3000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(10);
  }
}

const toolTexts = (messages: unknown[]) =>
  (messages as { role: string; content?: unknown }[]).filter((m) => m.role === "tool").map((m) => m.content);

describe("with a store, a dropped connection does not cancel the run", () => {
  for (const [name, drop] of [
    ["the reader goes away", sendThenDrop],
    ["the request's signal aborts", sendThenAbort],
  ] as const) {
    test(`${name} after an approved transfer started: the record says what ran, and the same resume replays it`, async () => {
      const bank = slowBank(150);
      const store = new MemoryThreadStore();
      const handle = createAguiHandler({ stores: { thread: store }, agent: bank.agent, logger: quietLogger() });
      const turn = await paused(handle, "t");
      const body = resumeBody("t", turn, { approved: true });
      await drop(handle, body, bank.started());
      // The run goes on without its client: it records the transfer's result and its own end.
      await until(async () => (await store.load("t")).lease === null);
      expect(bank.transfers).toEqual(["alice"]);
      const record = await store.load("t");
      expect(toolTexts(record.messages)).toEqual(["sent 5 to alice"]);
      expect(JSON.stringify(record)).not.toContain("cancelled");
      const again = await send(handle, { ...body, runId: crypto.randomUUID() });
      expect(again.outcome).toBe("success");
      expect(toolTexts(again.messages)).toEqual(["sent 5 to alice"]);
      expect(bank.transfers).toEqual(["alice"]);
    });
  }

  test("a new turn whose client left during the model's answer still records the whole answer", async () => {
    const bank = slowBank(0);
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ stores: { thread: store }, agent: bank.agent, logger: quietLogger() });
    const body = input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "tell me a story" }] });
    await sendThenDrop(handle, body, bank.modelStarted());
    await until(async () => (await store.load("t")).lease === null);
    const record = await store.load("t");
    const last = record.messages.at(-1) as { role: string; content: string };
    expect(last.role).toBe("assistant");
    expect(last.content).toBe("a long answer ".repeat(40));
  });
});

/** POSTs a Stop for the thread's current run. */
async function cancel(handle: (r: Request) => Promise<Response>, threadId: string, headers?: Record<string, string>) {
  const res = await handle(post({ kaboo_cancel: { threadId } }, headers));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("with a store, only an explicit Stop cancels", () => {
  test("a Stop during the model's answer ends the run cancelled; the thread is free again", async () => {
    const bank = slowBank(0);
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ stores: { thread: store }, agent: bank.agent, logger: quietLogger() });
    const body = input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "tell me a story" }] });
    const running = send(handle, body);
    await bank.modelStarted();
    expect((await cancel(handle, "t")).status).toBe(202);
    const turn = await running;
    expect(turn.outcome).toBe("cancelled");
    expect((await store.load("t")).lease).toBeNull();
    const next = await send(
      handle,
      input({ threadId: "t", messages: [...turn.messages, { id: "u2", role: "user", content: "hi" }] }),
    );
    expect(next.outcome).toBe("success");
  });

  test("a Stop while a transfer executes: the transfer finishes and is recorded, the run ends cancelled", async () => {
    const bank = slowBank(150);
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ stores: { thread: store }, agent: bank.agent, logger: quietLogger() });
    const turn = await paused(handle, "t");
    const body = resumeBody("t", turn, { approved: true });
    const running = send(handle, body);
    await bank.started();
    expect((await cancel(handle, "t")).status).toBe(202);
    const stopped = await running;
    expect(stopped.outcome).toBe("cancelled");
    expect(toolTexts(stopped.messages)).toEqual(["sent 5 to alice"]);
    expect(stopped.events.some((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toBe(false);
    expect(toolTexts((await store.load("t")).messages)).toEqual(["sent 5 to alice"]);
    const again = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(toolTexts(again.messages)).toEqual(["sent 5 to alice"]);
    expect(bank.transfers).toEqual(["alice"]);
  });

  test("a Stop when nothing runs answers 409; another person's Stop is refused and the run goes on", async () => {
    const bank = slowBank(0);
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({
      stores: { thread: store },
      agent: bank.agent,
      logger: quietLogger(),
      trust: { principal: (r) => r.headers.get("x-user") ?? "" },
    });
    expect((await cancel(handle, "t", { "x-user": "ann" })).status).toBe(409);
    const body = input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "tell me a story" }] });
    const running = send(handle, body, { "x-user": "ann" });
    await bank.modelStarted();
    expect((await cancel(handle, "t", { "x-user": "bob" })).status).toBe(403);
    const turn = await running;
    expect(turn.outcome).toBe("success");
  });

  test("a Stop body that is not one is a 400, never a run", async () => {
    const bank = slowBank(0);
    const handle = createAguiHandler({
      stores: { thread: new MemoryThreadStore() },
      agent: bank.agent,
      logger: quietLogger(),
    });
    for (const bad of [{ kaboo_cancel: {} }, { kaboo_cancel: { threadId: 5 } }, { kaboo_cancel: "t" }]) {
      const res = await handle(post(bad));
      expect(res.status).toBe(400);
    }
  });
});

describe("a Stop that reaches another isolate", () => {
  test("is written to the run's lease and heard on the run's next renewal: the run ends cancelled", async () => {
    const bank = slowBank(0);
    const store = new MemoryThreadStore();
    // The same stored thread seen from another isolate: its own live runs, the shared storage.
    const elsewhere: ThreadStore = {
      load: (t) => store.load(t),
      compareAndSet: (t, v, d) => store.compareAndSet(t, v, d),
      ledger: (t) => store.ledger(t),
    };
    const here = createAguiHandler({
      stores: { thread: store },
      agent: bank.agent,
      logger: quietLogger(),
      timing: { runLeaseMs: 150 },
    });
    const there = createAguiHandler({
      stores: { thread: elsewhere },
      agent: bank.agent,
      logger: quietLogger(),
      timing: { runLeaseMs: 150 },
    });
    const running = send(
      here,
      input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "tell me a story" }] }),
    );
    await bank.modelStarted();
    const stop = await cancel(there, "t");
    expect(stop.status).toBe(202);
    expect((await store.load("t")).lease?.cancel).toBe(true);
    const turn = await running;
    expect(turn.outcome).toBe("cancelled");
    expect((await store.load("t")).lease).toBeNull();
  });
});
