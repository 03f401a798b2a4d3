// workerd entry for runs hosted in the thread's Durable Object: KabooThread hosts a handler over
// its own store; the Worker only forwards. BANK is a second object that records transfers, so what
// ran survives a restart of workerd. GET /load?thread= reads a thread through the store operations;
// POST /claim?thread=&key= claims a call in the thread's ledger from outside the object, as a
// stateless handler sharing that ledger does; GET /meta?thread= reads what the object keeps of a live run
// and /alarm?thread= when its alarm is set. A thread named "slow-…" takes its thread late: the run's
// first write (its lease) waits SLOW_TAKE_MS, a window in which a test stops workerd or races a request.
// With SLOW_END set, a thread named "slowend-…" writes a run's end late: the write that frees the thread
// waits SLOW_END_MS, a window in which a test stops workerd after a Stop was accepted (started again
// without it, the runs there end on time); on a "lateend-…" thread it waits
// LATE_END_MS, less than the run's lease (the alarm would take a run that long silent for dead), a
// window in which a Stop races the run's end.
// With REFUSE_RERUN set the agent cannot be made, so a run the alarm runs again is refused at once.
// On a thread named "gated-…" the handler's reads of the thread wait until POST /open?thread=.
// On a "tail-…" thread a first attempt's event log is written up to event TAIL_LOGGED only: its later
// batches wait for ever (they were still on their way when the object died), while the client reads
// them live; a run again (it took the thread over) logs as usual.
import { forwardToThread } from "../../src/agui/index.js";
import { createAguiHandler } from "../../src/agui/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel } from "../../src/index.js";
import { newBank, transferTool } from "../fixtures/bank.js";
import {
  DurableObjectThreadStore,
  KabooThread as KabooThreadBase,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
} from "../../src/stores/durable-object.js";
import type { ThreadStore } from "../../src/stores/thread-store.js";

interface Env {
  THREAD: DurableObjectNamespaceLike;
  BANK: DurableObjectNamespaceLike;
  REFUSE_RERUN?: string;
  SLOW_END?: string;
}

const SLOW_TAKE_MS = 2_000;
const TAIL_LOGGED = 10;
const SLOW_END_MS = 3_000;
const LATE_END_MS = 300;

/**
 * The object's store, except that on a "slow-…" thread a write that takes the thread waits first,
 * and on a "slowend-…" or "lateend-…" thread a write that frees it.
 */
function slowTakes(store: ThreadStore, env: Env, gate: Promise<void>): ThreadStore {
  const seen = new Set<string>();
  return {
    load: async (t) => {
      if (t.startsWith("gated-")) await gate;
      return store.load(t);
    },
    compareAndSet: async (t, version, data) => {
      const token = data.lease?.token;
      if (t.startsWith("slow-") && token !== undefined && !seen.has(token)) {
        seen.add(token);
        await new Promise((r) => setTimeout(r, SLOW_TAKE_MS));
      }
      const slow = env.SLOW_END !== undefined && t.startsWith("slowend-");
      const end = slow ? SLOW_END_MS : t.startsWith("lateend-") ? LATE_END_MS : 0;
      if (end && data.lease === null) await new Promise((r) => setTimeout(r, end));
      return store.compareAndSet(t, version, data);
    },
    ledger: (t) => store.ledger(t),
    appendEvents: async (t, runId, from, events, ended, writer) => {
      if (t.startsWith("tail-") && writer?.tookOver === undefined && from + events.length > TAIL_LOGGED) {
        if (from < TAIL_LOGGED)
          await store.appendEvents!(t, runId, from, events.slice(0, TAIL_LOGGED - from), false, writer);
        await new Promise(() => {});
      }
      return store.appendEvents!(t, runId, from, events, ended, writer);
    },
    readEvents: (...a) => store.readEvents!(...a),
    compactEvents: (...a) => store.compactEvents!(...a),
  };
}

const LEASE_MS = 600;
/** Room for a request past the 2 MB one SQLite value holds (hosted-big-request.test.ts). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

function bankAgent(env: Env): Agent {
  const bank = env.BANK.get(env.BANK.idFromName("bank") as never);
  // The shared bank's transfer, recorded in the BANK object (it takes the `ms` the message names).
  const transfer = transferTool(newBank(), {
    onStarted: ({ to }) => bank.fetch("https://bank/started", { method: "POST", body: to }),
    onSent: ({ to }) => bank.fetch("https://bank/sent", { method: "POST", body: to }),
  });
  const model = new ScriptedModel({
    chunkSize: 8,
    delayMs: 5,
    script: ({ lastUserText, lastToolResults }) => {
      if (lastToolResults.length) return { text: "Done." };
      if (lastUserText === "a story") return { text: "a long story ".repeat(30) };
      // About 4 s of text (8 characters every 5 ms).
      if (lastUserText === "a very long story") return { text: "a long story ".repeat(500) };
      const both = /pay (\w+) (\d+) and (\w+) (\d+) taking (\d+)/.exec(lastUserText);
      if (both)
        return {
          toolCalls: [
            { name: "transfer", input: { to: both[1], amount: Number(both[2]), ms: Number(both[5]) } },
            { name: "transfer", input: { to: both[3], amount: Number(both[4]), ms: Number(both[5]) } },
          ],
        };
      const pay = /pay (\w+) (\d+) taking (\d+)/.exec(lastUserText);
      if (pay)
        return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]), ms: Number(pay[3]) } }] };
      return { text: `You said: ${lastUserText}` };
    },
  });
  // One transfer after the other: a Stop during the first finds the second not started.
  return new Agent({ model, tools: [transfer], hooks: [new InterruptHook(["transfer"])], toolExecutor: "sequential" });
}

/** `authorization: Bearer <name>` names the person; no header: anonymous (the thread of no one). */
const principal = (request: Request) => {
  const auth = request.headers.get("authorization");
  return auth === null ? "anyone" : auth.replace(/^Bearer /, "");
};

type State = DurableObjectStateLike & { storage: { getAlarm(): Promise<number | null> } };

export class KabooThread extends KabooThreadBase {
  readonly #ctx: State;
  readonly #open: () => void;
  constructor(ctx: State, env: Env) {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    super(ctx, env, {
      leaseMs: LEASE_MS,
      handler: (store) =>
        createAguiHandler({
          stores: { thread: slowTakes(store, env, gate) },
          timing: { runLeaseMs: LEASE_MS },
          limits: { maxBodyBytes: MAX_BODY_BYTES },
          trust: { principal },
          agent: () => {
            if (env.REFUSE_RERUN) throw new Error("this deployment cannot make the agent");
            return bankAgent(env);
          },
        }),
    });
    this.#ctx = ctx;
    this.#open = open;
  }
  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/test/meta")
      return Response.json(this.#ctx.storage.sql.exec("SELECT key, value FROM kaboo_meta").toArray());
    if (path === "/test/alarm") return Response.json({ alarm: await this.#ctx.storage.getAlarm() });
    if (path === "/test/open") {
      this.#open();
      return Response.json({ open: true });
    }
    return super.fetch(request);
  }
}

export class Bank {
  readonly #sql: DurableObjectStateLike["storage"]["sql"];
  constructor(ctx: DurableObjectStateLike) {
    this.#sql = ctx.storage.sql;
    this.#sql.exec("CREATE TABLE IF NOT EXISTS log (n INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT, who TEXT)");
  }
  async fetch(request: Request): Promise<Response> {
    const what = new URL(request.url).pathname.slice(1);
    if (request.method === "POST")
      this.#sql.exec("INSERT INTO log (what, who) VALUES (?, ?)", what, await request.text());
    return Response.json(this.#sql.exec("SELECT what, who FROM log ORDER BY n").toArray());
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/load")
      return Response.json(await new DurableObjectThreadStore(env.THREAD).load(url.searchParams.get("thread") ?? ""));
    const thread = url.searchParams.get("thread") ?? "";
    if (url.pathname === "/claim") {
      const ledger = new DurableObjectThreadStore(env.THREAD).ledger(thread);
      return Response.json(await ledger.claim(url.searchParams.get("key") ?? ""));
    }
    if (url.pathname === "/meta" || url.pathname === "/alarm" || url.pathname === "/open")
      return env.THREAD.get(env.THREAD.idFromName(thread) as never).fetch(
        `https://kaboo-thread.internal/test${url.pathname}`,
      );
    if (url.pathname === "/bank") return env.BANK.get(env.BANK.idFromName("bank") as never).fetch("https://bank/log");
    return forwardToThread(request, env.THREAD, { maxBodyBytes: MAX_BODY_BYTES });
  },
};
