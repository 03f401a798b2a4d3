/**
 * The sweeper of PostgresRunHost across real processes on one PostgreSQL database: process K (its
 * runs hold their thread 1 s without renewal) is SIGKILLed mid-transfer; the sweepers of processes
 * B and C (each every 150 ms) race to run the run again, and exactly one does: the dead transfer's
 * open claim reads `unknown`, so the run asks "did it go through?", and a client reattaching in B
 * sees that question; the transfer started once and never moved. A run again that is refused (the
 * process makes no agent) is given up once: the thread freed, its log ended with RUN_NOT_RESUMED.
 * Four sweepers finding one dead run at once run it once; a run that died on its last allowed attempt
 * is given up without running; a request refused while another run holds
 * the thread does not replace that run's kept request (nor whom it is for).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { UserError } from "../../../src/errors.js";
import { fromNodePostgres, PostgresRunHost, PostgresThreadStore } from "../../../src/stores/postgres.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { capturingLogger } from "../../fixtures/logger.js";
import { input } from "../helpers.js";
import { post, resumeBody, pause, send } from "./fixtures.js";
import { type Frame, frames, type Proc, type Processes, processes, until } from "./pg-processes.js";

let p: Processes | undefined;
let b: Proc;
let c: Proc;

beforeAll(async () => {
  p = await processes();
  const sweeping = { HOSTED: "1", SWEEP_MS: "150", REFUSE_X: "1" };
  [b, c] = await Promise.all([p.start("B", sweeping), p.start("C", sweeping)]);
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

const column = async (sql: string, param: string) =>
  (await p!.db.query(sql, [param])).rows.map((r) => String(Object.values(r)[0]));
const startedTo = (payee: string) => column("SELECT process FROM test_started WHERE payee = $1", payee);
const transfersTo = (payee: string) => column("SELECT process FROM test_transfers WHERE payee = $1", payee);
/** The processes whose sweeper ran a request of `thread` again. */
const replaysOf = (thread: string) =>
  column("SELECT process FROM test_replays WHERE body LIKE '%' || $1 || '%'", thread);
const keptOf = (thread: string) => column("SELECT run_id FROM kaboo_hosted_runs WHERE thread_id = $1", thread);

/** Process K pauses a transfer, its approval starts it, and K is killed once it started. */
async function killedMidTransfer(thread: string, payee: string) {
  const k = await p!.start(`K${thread}`, { HOSTED: "1", RUN_LEASE_MS: "1000" });
  const { turn } = await pause(k.handle, thread, `pay ${payee} 5 taking 60000`);
  const body = { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() };
  const got: Frame[] = [];
  const reading = k.handle(post(body)).then(
    (r) => frames(r, (f) => got.push(f)),
    () => [],
  );
  await until(async () => (await startedTo(payee)).length > 0, "the transfer started");
  // Killed once its log began: a run again's events are named for their attempt only after a logged one.
  const store = new PostgresThreadStore(p!.db);
  await until(async () => ((await store.readEvents(thread, body.runId, -1))?.events.length ?? 0) > 0, "its log began");
  // Kept once the run took its thread, without the client's headers.
  await until(async () => (await keptOf(thread))[0] === body.runId, "the run was kept");
  k.child.kill("SIGKILL");
  await reading;
  return { body, got };
}

describe("the sweeper of PostgresRunHost, across processes", () => {
  test("a process killed mid-transfer: one sweeper runs it again, which asks whether it went through; a client reattaching elsewhere sees the question", async () => {
    const payee = `eve${Date.now()}`;
    const thread = `t-${crypto.randomUUID()}`;
    const { body, got } = await killedMidTransfer(thread, payee);
    expect(got[0]?.event.type).toBe("RUN_STARTED");
    const store = new PostgresThreadStore(p!.db);
    // Nobody sends anything: the run again paused on the question by itself.
    await until(
      async () => (await store.load(thread)).session !== null && (await store.load(thread)).lease === null,
      "the run again paused",
      20_000,
    );
    expect(await replaysOf(thread)).toHaveLength(1);
    const rest = await frames(
      await b.handle(post({ kaboo_connect: { threadId: thread } }, { "last-event-id": got.at(-1)!.id! })),
    );
    const end = rest.at(-1)?.event as { type: string; outcome?: { interrupts?: { id: string }[] } } | undefined;
    expect(end?.type).toBe("RUN_FINISHED");
    expect(end?.outcome?.interrupts?.map((i) => i.id.includes("outcome_unknown"))).toEqual([true]);
    // The run again's events: its marker, then ids that name attempt 1.
    expect(rest.some((f) => f.event.type === "CUSTOM" && f.event.name === "kaboo_run_again")).toBe(true);
    expect(rest.at(-1)?.id).toMatch(new RegExp(`^${body.runId}:\\d+\\.1$`));
    expect(await startedTo(payee)).toEqual([`K${thread}`]);
    expect(await transfersTo(payee)).toEqual([]);
    // The run paused: its kept request goes with the next sweep, and nothing runs again later.
    await until(async () => (await keptOf(thread)).length === 0, "the kept request was dropped");
    await new Promise((r) => setTimeout(r, 600));
    expect(await replaysOf(thread)).toHaveLength(1);
    expect(await startedTo(payee)).toHaveLength(1);
  }, 60_000);

  test("the client sends the dead run's request again just as the sweepers find it: one of them runs it, the transfer still never moves", async () => {
    const payee = `hal${Date.now()}`;
    const thread = `t-${crypto.randomUUID()}`;
    const { body } = await killedMidTransfer(thread, payee);
    const store = new PostgresThreadStore(p!.db);
    await until(async () => ((await store.load(thread)).lease?.expiresAt ?? 0) <= Date.now(), "the hold lapsed");
    const [viaB, viaC] = await Promise.all([send(b.handle, body), send(c.handle, body)]);
    await until(async () => (await store.load(thread)).lease === null, "the run again paused", 20_000);
    // Each of the two ran it again, was refused, or was answered with the question that run asked.
    for (const t of [viaB, viaC])
      if (!t.interrupts.some((i) => i.id.includes("outcome_unknown")))
        expect(t.error?.code, JSON.stringify(t.events.map((e) => e.type))).toMatch(/IN_PROGRESS|RUN_ID_REUSED/);
    expect((await store.load(thread)).session).not.toBeNull();
    expect(await startedTo(payee)).toEqual([`K${thread}`]);
    expect(await transfersTo(payee)).toEqual([]);
  }, 60_000);

  test("a run again that is refused before it takes the thread is given up once: the thread is free and the run's log ends with RUN_NOT_RESUMED", async () => {
    const payee = `fay${Date.now()}`;
    const thread = `x-${crypto.randomUUID()}`;
    const { body, got } = await killedMidTransfer(thread, payee);
    const store = new PostgresThreadStore(p!.db);
    await until(async () => (await store.load(thread)).lease === null, "the thread was freed", 20_000);
    const whole = await frames(await c.handle(post({ kaboo_connect: { threadId: thread, runId: body.runId } })));
    const end = whole.at(-1)?.event as { type: string; code?: string; message?: string } | undefined;
    expect(end?.type).toBe("RUN_ERROR");
    expect(end?.code).toBe("RUN_NOT_RESUMED");
    expect(end?.message).toMatch(/run_not_started/);
    // The killed client's own reattach, from the last id it read (the log may not have that event: then
    // from the run's start, what it held being void): its stream ends with the run's end, never a 400.
    const last = got.at(-1)?.id as string;
    const rest = await frames(await c.handle(post({ kaboo_connect: { threadId: thread } }, { "last-event-id": last })));
    expect(rest.at(-1)).toEqual(whole.at(-1));
    expect(rest).toEqual(whole.slice(whole.findIndex((f) => f.id === last) + 1));
    expect(await keptOf(thread)).toEqual([]);
    await new Promise((r) => setTimeout(r, 600));
    expect(await replaysOf(thread)).toHaveLength(1);
    // The dead transfer's claim is cut off: it never moved, and it is never taken for running.
    expect(await transfersTo(payee)).toEqual([]);
    const { rows } = await p!.db.query(
      "SELECT count(*)::integer AS n FROM kaboo_ledger WHERE thread_id = $1 AND result IS NULL AND lease_expires_at > $2::bigint",
      [thread, Date.now()],
    );
    expect(rows).toEqual([{ n: 0 }]);
  }, 60_000);

  test("four sweepers (two here, B's and C's) that find the same dead run at once: one runs it again, the others leave it", async () => {
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: p!.server.url, max: 2 }));
    try {
      const calls: string[] = [];
      const hosts = pools.map((pool, i) => {
        const db = fromNodePostgres(pool);
        const handler = createAguiHandler({
          agent: () => bankAgent(newBank()),
          stores: { thread: new PostgresThreadStore(db) },
          trust: { principal: (request) => request.headers.get("x-user") ?? "ann" },
          logger: capturingLogger(),
        });
        return new PostgresRunHost(db, {
          handler: (request) => {
            calls.push(`host${i}`);
            return handler(request);
          },
          leaseMs: 1000,
        });
      });
      for (let trial = 0; trial < 5; trial++) {
        calls.length = 0;
        // A run that took its thread, had its request kept, and died: its hold ran out a second ago.
        const thread = `t-${crypto.randomUUID()}`;
        const body = input({ threadId: thread, messages: [{ id: "m1", role: "user", content: "hello" }] });
        const token = crypto.randomUUID();
        const lease = { token, runId: body.runId, resume: false, expiresAt: Date.now() - 1000 };
        const data = { owner: "ann", session: null, messages: [], state: {}, answered: {}, lease, updatedAt: 0 };
        expect(await new PostgresThreadStore(p!.db).compareAndSet(thread, 0, data)).toBe(true);
        await p!.db.query(
          "INSERT INTO kaboo_hosted_runs (thread_id, run_id, token, url, body, principal, kept_at) VALUES ($1, $2, $3, 'http://node.test/agui', $4, 'ann', 0)",
          [thread, body.runId, token, JSON.stringify(body)],
        );
        // Processes B and C sweep too: four sweepers race.
        const results = await Promise.all(hosts.map((h) => h.sweep()));
        const store = new PostgresThreadStore(p!.db);
        await until(async () => (await store.load(thread)).lease === null, "the run again ended");
        expect(calls.length + (await replaysOf(thread)).length).toBe(1);
        expect(results.flatMap((r) => r.ran)).toEqual(calls.length ? [thread] : []);
        const after = await store.load(thread);
        expect(after.messages.map((m) => (m as { content?: string }).content)).toEqual(["hello", "You said: hello"]);
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 60_000);

  test("a run that died on its last allowed attempt is given up, not run again: its open call cut off, its log ended", async () => {
    const hosts = [0, 1].map(
      () => new PostgresRunHost(p!.db, { handler: async () => new Response("ran"), leaseMs: 1000, maxAttempts: 3 }),
    );
    const thread = `t-${crypto.randomUUID()}`;
    const runId = crypto.randomUUID();
    const token = crypto.randomUUID();
    const store = new PostgresThreadStore(p!.db);
    // Its fourth attempt (attempt 3) died holding the thread, mid-call, before it logged anything; its
    // hold lapsed a second ago.
    const lease = { token, runId, resume: true, expiresAt: Date.now() - 1000, attempt: 3 };
    const data = { owner: "ann", session: null, messages: [], state: {}, answered: {}, lease, updatedAt: 0 };
    expect(await store.compareAndSet(thread, 0, data)).toBe(true);
    expect((await store.ledger(thread, { token }).claim("call-1")).status).toBe("claimed");
    await p!.db.query(
      "INSERT INTO kaboo_hosted_runs (thread_id, run_id, token, url, body, principal, kept_at) VALUES ($1, $2, $3, 'http://node.test/agui', '{}', 'ann', 0)",
      [thread, runId, token],
    );
    // Here, and in B and C (three attempts allowed there too): whichever sweeps, it gives up.
    const results = await Promise.all(hosts.map((h) => h.sweep()));
    await until(async () => (await store.load(thread)).lease === null, "the thread was freed");
    expect(results.flatMap((r) => r.ran)).toEqual([]);
    expect(await replaysOf(thread)).toEqual([]);
    expect(await keptOf(thread)).toEqual([]);
    const logged = await store.readEvents(thread, runId, -1);
    expect(logged?.ended).toBe(true);
    // It had logged nothing: its log is its RUN_STARTED and its end.
    expect(logged?.events.map((e) => (e as { type?: unknown }).type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(logged?.events.at(-1)).toMatchObject({
      type: "RUN_ERROR",
      code: "RUN_NOT_RESUMED",
      message: expect.stringMatching(/each of its 4 attempts/),
    });
    expect((await store.ledger(thread).claim("call-1")).status).toBe("unknown");
  }, 30_000);

  test("a request refused while another run holds the thread keeps nothing: the holder's request and person stay kept", async () => {
    const payee = `gus${Date.now()}`;
    const thread = `t-${crypto.randomUUID()}`;
    const { turn } = await pause(b.handle, thread, `pay ${payee} 5 taking 4000`);
    const body = { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() };
    const running = send(b.handle, body);
    // (The paused first turn's request may still be kept until the next sweep.)
    await until(async () => (await keptOf(thread))[0] === body.runId, "the run was kept");
    const other = { ...body, runId: crypto.randomUUID() };
    // The same answer sent to the holder's own process may wait for the run and replay its outcome.
    const sameProcess = send(b.handle, { ...other, runId: crypto.randomUUID() });
    const refused = await Promise.all([
      send(c.handle, other),
      send(c.handle, { ...other, runId: crypto.randomUUID() }, { "x-user": "mallory" }),
    ]);
    // Mallory may be told the thread is busy before she is told it is not hers: either way, refused.
    expect(refused.map((t) => t.error?.code)).toEqual([
      expect.stringMatching(/IN_PROGRESS/),
      expect.stringMatching(/^THREAD_FORBIDDEN$|IN_PROGRESS/),
    ]);
    // Checked while the holder still runs (its transfer takes 4 s).
    expect((await new PostgresThreadStore(p!.db).load(thread)).lease?.runId).toBe(body.runId);
    const { rows } = await p!.db.query("SELECT run_id, principal FROM kaboo_hosted_runs WHERE thread_id = $1", [
      thread,
    ]);
    expect(rows).toEqual([{ run_id: body.runId, principal: "ann" }]);
    const same = await sameProcess;
    expect(same.error?.code ?? same.outcome).toMatch(/IN_PROGRESS|^success$/);
    expect((await running).outcome).toBe("success");
    expect(await transfersTo(payee)).toEqual(["B"]);
  }, 60_000);

  test("PostgresRunHost refuses what it cannot use, and a sweeper whose signal aborted stops", async () => {
    const handler = async () => new Response();
    expect(() => new PostgresRunHost({} as never, { handler })).toThrow(UserError);
    expect(() => new PostgresRunHost(p!.db, {} as never)).toThrow(/needs `handler`/);
    expect(() => new PostgresRunHost(p!.db, { handler, leaseMs: 0 })).toThrow(/leaseMs/);
    expect(() => new PostgresRunHost(p!.db, { handler, maxAttempts: -1 })).toThrow(/maxAttempts/);
    const host = new PostgresRunHost(p!.db, { handler });
    expect(() => host.startSweeper({ everyMs: Number.NaN })).toThrow(/everyMs/);
    const signal = AbortSignal.abort();
    await host.startSweeper({ everyMs: 10, signal }).stop();
    // A serverless host's context (its waitUntil) reaches the handler as is.
    const seen: unknown[] = [];
    const ctx = { waitUntil: () => undefined };
    await new PostgresRunHost(p!.db, { handler: async (_, context) => (seen.push(context), new Response()) }).fetch(
      new Request("http://node.test/agui"),
      ctx,
    );
    expect(seen).toEqual([ctx]);
    const live = new AbortController();
    const sweeper = host.startSweeper({ everyMs: 10, signal: live.signal });
    await new Promise((r) => setTimeout(r, 50));
    live.abort();
    await sweeper.stop();
  });
});
