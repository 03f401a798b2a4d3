// Deno entry for the Stop-outlives-its-process test: a handler over DenoKvThreadStore on the database
// file given as the first argument (run lease 600 ms), streaming a long story slowly; prints its port
// as one JSON line. With "slow-end" as the second argument the write that ends a run (frees its
// thread) waits 3 s: the window in which the test kills this process after a Stop was accepted.
// On a "tail-…" thread a first attempt's event log is written up to event TAIL_LOGGED only: its later
// batches wait for ever (they were on their way when the process died), while the client reads them
// live; a run again (it took the thread over) logs as usual.
import { createAguiHandler } from "../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../src/index.js";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import type { ThreadStore } from "../../src/stores/thread-store.js";
import { capturingLogger } from "../fixtures/logger.js";

const kv = new DenoKvThreadStore(await Deno.openKv(Deno.args[0]));
const slowEnd = Deno.args[1] === "slow-end";
const TAIL_LOGGED = 10;
const store: ThreadStore = {
  load: (t) => kv.load(t),
  compareAndSet: async (t, version, data) => {
    if (slowEnd && data.lease === null) await new Promise((r) => setTimeout(r, 3_000));
    return kv.compareAndSet(t, version, data);
  },
  ledger: (t) => kv.ledger(t),
  appendEvents: async (t, runId, from, events, ended, writer) => {
    if (t.startsWith("tail-") && writer?.tookOver === undefined && from + events.length > TAIL_LOGGED) {
      if (from < TAIL_LOGGED) await kv.appendEvents(t, runId, from, events.slice(0, TAIL_LOGGED - from), false, writer);
      await new Promise(() => {});
    }
    return kv.appendEvents(t, runId, from, events, ended, writer);
  },
  readEvents: (...a) => kv.readEvents(...a),
  compactEvents: (...a) => kv.compactEvents(...a),
};
const handle = createAguiHandler({
  stores: { thread: store },
  timing: { runLeaseMs: 600 },
  logger: capturingLogger(true),
  agent: () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastUserText }) => ({
          text: lastUserText === "a story" ? "a long story ".repeat(300) : `You said: ${lastUserText}`,
        }),
        chunkSize: 8,
        delayMs: 10,
      }),
    }),
});
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, handle);
