/**
 * Stop attacked: a Stop while the thread only waits on a question (nothing runs: 409, and the
 * question still answers once), another person's Stop of a paused thread, a Stop naming another
 * run, and a Stop that reaches the run through another isolate (the lease): the run ends
 * cancelled, its record is saved, and the thread is free for the next turn.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { input } from "../helpers.js";
import { post, quietLogger, resumeBody, send } from "./fixtures.js";

function elsewhere(store: MemoryThreadStore): ThreadStore {
  return {
    load: (t) => store.load(t),
    compareAndSet: (t, v, d) => store.compareAndSet(t, v, d),
    ledger: (t) => store.ledger(t),
  };
}

function setup(runLeaseMs?: number) {
  const bank = newBank();
  const store = new MemoryThreadStore();
  const agent = () =>
    bankAgent(bank, {
      model: new ScriptedModel({
        script: ({ lastUserText, lastToolResults }) => {
          if (lastToolResults.length) return { text: "Done." };
          if (lastUserText.startsWith("pay")) return { toolCalls: [{ name: "transfer", input: { to: "bob" } }] };
          return { text: "a long answer ".repeat(60) };
        },
        chunkSize: 4,
        delayMs: 2,
      }),
      payeeOnly: true,
      gate: { remember: false, agentName: "" },
    });
  const principal = (r: Request) => r.headers.get("x-user") ?? "";
  const lease = runLeaseMs === undefined ? {} : { timing: { runLeaseMs } };
  const handle = createAguiHandler({
    stores: { thread: store },
    agent,
    logger: quietLogger(),
    trust: { principal },
    ...lease,
  });
  const other = createAguiHandler({
    stores: { thread: elsewhere(store) },
    agent,
    logger: quietLogger(),
    trust: { principal },
    ...lease,
  });
  const stop = (h: typeof handle, threadId: string, who: string, runId?: string) =>
    h(post({ kaboo_cancel: { threadId, ...(runId ? { runId } : {}) } }, { "x-user": who }));
  return { transfers: bank.sent, store, handle, other, stop, ann: { "x-user": "ann" } };
}

const say = (threadId: string, text: string) =>
  input({ threadId, messages: [{ id: crypto.randomUUID(), role: "user", content: text }] });

describe("Stop, attacked", () => {
  test("a Stop while the thread waits on a question: 409, 403 for another person; the question answers once", async () => {
    const s = setup();
    const paused = await send(s.handle, say("t", "pay bob"), s.ann);
    expect(paused.interrupts).toHaveLength(1);
    expect((await s.stop(s.handle, "t", "ann")).status).toBe(409);
    expect((await s.stop(s.other, "t", "ann")).status).toBe(409);
    expect((await s.stop(s.other, "t", "eve")).status).toBe(403);
    const body = resumeBody("t", paused, { approved: true });
    const [a, b] = await Promise.all([send(s.handle, body, s.ann), send(s.other, body, s.ann)]);
    expect([a, b].some((t) => t.outcome === "success")).toBe(true);
    expect(s.transfers).toEqual(["bob"]);
  });

  test("a Stop naming another run of the thread stops nothing", async () => {
    const s = setup();
    const running = send(s.handle, say("t", "tell me a story"), s.ann);
    await new Promise((r) => setTimeout(r, 30));
    expect((await s.stop(s.handle, "t", "ann", "not-this-run")).status).toBe(409);
    expect((await running).outcome).toBe("success");
  });

  test("a Stop through another isolate reaches the run at its lease renewal; the record is saved, the thread free", async () => {
    const s = setup(300);
    const running = send(s.handle, say("t", "tell me a story"), s.ann);
    await new Promise((r) => setTimeout(r, 50));
    expect((await s.stop(s.other, "t", "ann")).status).toBe(202);
    const stopped = await running;
    expect(stopped.error).toBeUndefined();
    expect(stopped.outcome).toBe("cancelled");
    const record = await s.store.load("t");
    expect(record.lease).toBeNull();
    expect(record.messages.length).toBeGreaterThan(0);
    const next = await send(
      s.other,
      input({ threadId: "t", messages: [...stopped.messages, ...say("t", "hi").messages] }),
      s.ann,
    );
    expect(next.error).toBeUndefined();
  });

  test("a Stop or a reattach from no one is 401, whether or not the thread exists", async () => {
    const s = setup();
    await send(s.handle, say("t", "pay bob"), s.ann);
    for (const threadId of ["t", "none"])
      for (const body of [{ kaboo_cancel: { threadId } }, { kaboo_connect: { threadId } }]) {
        const res = await s.handle(post(body, { "x-user": "" }));
        expect(res.status).toBe(401);
      }
  });
});
