/**
 * Two Node processes, one PostgreSQL database (a throwaway cluster, see test/stores/pg-server.ts):
 * each runs the bank agent behind createAguiHandler on PostgresThreadStore (postgres-process.ts, bundled
 * and started by pg-processes.ts). The same approving resume sent to both at once moves the money once;
 * a client that lost the stream of a run in one process reattaches in the other and gets exactly what
 * it missed;
 * a grant revoked from a third pool holds in both on their next request; a process killed mid-transfer
 * leaves the question "did it go through?" to the process the same request is sent to next.
 */
import { EventType } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresGrantStore, PostgresThreadStore, type PgQueryable } from "../../../src/stores/postgres.js";
import { pause, post, resumeBody, send } from "./fixtures.js";
import { type Handle, type Processes, processes } from "./pg-processes.js";

let p: Processes | undefined;
let db: PgQueryable;
let a: Handle;
let b: Handle;

beforeAll(async () => {
  p = await processes();
  db = p.db;
  [a, b] = (await Promise.all([p.start("A"), p.start("B")])).map((proc) => proc.handle);
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

/** Processes in which a transfer to `payee` started. */
async function startedTo(payee: string): Promise<string[]> {
  const { rows } = await db.query("SELECT process FROM test_started WHERE payee = $1", [payee]);
  return rows.map((r) => String(r.process));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Transfers to `payee` that moved money, by process. */
async function transfersTo(payee: string): Promise<string[]> {
  const { rows } = await db.query("SELECT process FROM test_transfers WHERE payee = $1", [payee]);
  return rows.map((r) => String(r.process));
}

interface Frame {
  id: string | undefined;
  type: string;
}

/** A response's SSE frames; stops after `limit` (dropping the connection) or at the end. */
async function frames(res: Response, limit = Number.POSITIVE_INFINITY): Promise<Frame[]> {
  const out: Frame[] = [];
  const parser = createParser({ onEvent: (m) => out.push({ id: m.id, type: (JSON.parse(m.data) as Frame).type }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  while (out.length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel().catch(() => undefined);
  return out.slice(0, limit);
}

describe("two Node processes on one PostgreSQL database", () => {
  test("the same approving resume sent to both at once moves the money once, and once more changes nothing", async () => {
    for (const [i, taking] of [0, 0, 150, 400].entries()) {
      const payee = `bob${i}x${Date.now()}`;
      const thread = `t-${crypto.randomUUID()}`;
      const { turn } = await pause(a, thread, `pay ${payee} 5${taking ? ` taking ${taking}` : ""}`);
      const body = { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() };
      const outcomes = await Promise.all([send(a, body), send(b, body)]);
      expect(await transfersTo(payee)).toHaveLength(1);
      const ok = outcomes.filter((o) => o.outcome === "success");
      expect(ok.length, JSON.stringify(outcomes.map((o) => o.error ?? o.outcome))).toBeGreaterThanOrEqual(1);
      // The loser is refused: while the winner runs (in progress), or after it ended (its run id is then the
      // thread's last run: reused, or its pause is spent: stale).
      for (const o of outcomes)
        if (o.outcome !== "success")
          expect(["RUN_IN_PROGRESS", "RESUME_IN_PROGRESS", "STALE_THREAD", "RUN_ID_REUSED"]).toContain(o.error?.code);
      // The same answer again, from either process, after the run ended: nothing moves.
      await send(b, { ...body, runId: crypto.randomUUID() }).catch(() => undefined);
      await send(a, { ...body, runId: crypto.randomUUID() }).catch(() => undefined);
      expect(await transfersTo(payee)).toHaveLength(1);
    }
  }, 60_000);

  test("a client that lost the stream of a run in one process reattaches in the other and gets exactly what it missed", async () => {
    const payee = `carol${Date.now()}`;
    const thread = `t-${crypto.randomUUID()}`;
    const { turn } = await pause(a, thread, `pay ${payee} 7 taking 300`);
    const body = { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() };
    const first = await frames(await a(post(body)), 3);
    const rest = await frames(
      await b(post({ kaboo_connect: { threadId: thread } }, { "last-event-id": first.at(-1)!.id! })),
    );
    expect(rest.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    // Event ids are `<runId>:<n>`: together, every event of the run once, in order, none missed.
    const seen = [...first, ...rest].map((f) => f.id);
    expect(seen).toEqual(seen.map((_, n) => `${body.runId}:${n}`));
    expect(rest.length).toBeGreaterThan(0);
    expect(await transfersTo(payee)).toEqual(["A"]);
  }, 60_000);

  test("a grant remembered through one process is used by the other; revoked from a third pool, both ask again", async () => {
    const payee = `dan${Date.now()}`;
    const who = { "x-user": `ann-${crypto.randomUUID()}` };
    const t1 = `t-${crypto.randomUUID()}`;
    const { turn } = await pause(a, t1, `pay ${payee} 1`, who);
    await send(a, resumeBody(t1, turn, { approved: true, scope: "always" }), who);
    const say = (thread: string) => ({
      threadId: thread,
      runId: crypto.randomUUID(),
      messages: [{ id: crypto.randomUUID(), role: "user" as const, content: `pay ${payee} 1` }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: { kaboo_grants: [] },
    });
    const covered = await send(b, say(`t-${crypto.randomUUID()}`), who);
    expect(covered.interrupts).toEqual([]);
    expect(await transfersTo(payee)).toHaveLength(2);
    expect(await new PostgresGrantStore(db).revokePrincipal(who["x-user"], "transfer")).toBe(1);
    for (const h of [a, b]) expect((await send(h, say(`t-${crypto.randomUUID()}`), who)).interrupts).toHaveLength(1);
    expect(await transfersTo(payee)).toHaveLength(2);
  }, 60_000);

  test("a process killed mid-transfer: the same request sent to the other, once its hold ran out, asks whether it went through", async () => {
    const { handle: c, child } = await p!.start("C", { RUN_LEASE_MS: "1000" });
    const payee = `eve${Date.now()}`;
    const thread = `t-${crypto.randomUUID()}`;
    const { turn } = await pause(c, thread, `pay ${payee} 5 taking 60000`);
    const body = { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() };
    void c(post(body)).then(
      (r) => r.body?.cancel(),
      () => undefined,
    );
    while ((await startedTo(payee)).length === 0) await sleep(20);
    child.kill("SIGKILL");
    const store = new PostgresThreadStore(db);
    for (;;) {
      const { lease } = await store.load(thread);
      if (lease !== null && lease.expiresAt < Date.now()) break;
      await sleep(50);
    }
    const again = await send(b, body);
    expect(again.interrupts).toHaveLength(1);
    expect(again.interrupts[0]?.id).toContain("outcome_unknown");
    expect(await startedTo(payee)).toEqual(["C"]);
    expect(await transfersTo(payee)).toEqual([]);
  }, 60_000);
});
