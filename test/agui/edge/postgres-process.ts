/**
 * One server process of the two-process test (postgres-processes.test.ts), bundled by it with
 * esbuild and run with Node: the bank agent behind createAguiHandler on PostgresThreadStore, on the
 * database named by DATABASE_URL. Every transfer that started is recorded in `test_started`, and
 * every one that moved money in `test_transfers` (with this process's NAME), so the test counts them
 * across processes. RUN_LEASE_MS sets the handler's `runLeaseMs`. Threads whose id starts with `q-`
 * ask two approvers (four eyes). With HOSTED, the handler is served through PostgresRunHost (each
 * run's request kept); with SWEEP_MS as well, its sweeper runs every SWEEP_MS, and each request it
 * runs again (one without the test client's `x-test-client` header) is recorded in `test_replays`.
 * With REFUSE_X, the process makes no agent for threads whose id starts with `x-`.
 * Prints `listening <port>`.
 */
import { serve } from "@hono/node-server";
import pg from "pg";
import { createAguiHandler } from "../../../src/agui/index.js";
import {
  fromNodePostgres,
  PostgresGrantStore,
  PostgresRunHost,
  PostgresThreadStore,
} from "../../../src/stores/postgres.js";
import { bankAgent, fourEyes, newBank } from "../../fixtures/bank.js";
import { capturingLogger } from "../../fixtures/logger.js";

const name = process.env.NAME ?? "?";
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 8 });
const db = fromNodePostgres(pool);
const handler = createAguiHandler({
  agent: (threadId, { secret }) => {
    if (process.env.REFUSE_X && threadId.startsWith("x-"))
      throw new Error("this process makes no agent for x- threads");
    return bankAgent(newBank(), {
      tools: ["balance"],
      gate: threadId.startsWith("q-") ? { remember: false, approvals: fourEyes, secret } : { subject: "key", secret },
      onStarted: async (t) => {
        await db.query("INSERT INTO test_started (process, payee) VALUES ($1, $2)", [name, t.to]);
      },
      onSent: async (t) => {
        await db.query("INSERT INTO test_transfers (process, payee, amount) VALUES ($1, $2, $3::integer)", [
          name,
          t.to,
          Number(t.amount),
        ]);
      },
    });
  },
  stores: { thread: new PostgresThreadStore(db), grants: new PostgresGrantStore(db) },
  trust: { principal: (request) => request.headers.get("x-user") ?? "ann" },
  logger: capturingLogger(),
  ...(process.env.RUN_LEASE_MS ? { timing: { runLeaseMs: Number(process.env.RUN_LEASE_MS) } } : {}),
});

let fetch: (request: Request) => Promise<Response> = (request) => handler(request);
if (process.env.HOSTED) {
  const host = new PostgresRunHost(db, {
    handler: async (request) => {
      if (!request.headers.has("x-test-client"))
        await db.query("INSERT INTO test_replays (process, body) VALUES ($1, $2)", [
          name,
          await request.clone().text(),
        ]);
      return handler(request);
    },
    leaseMs: Number(process.env.RUN_LEASE_MS ?? 1000),
    logger: { warn: () => undefined, error: (m, d) => console.error(m, JSON.stringify(d)) },
  });
  fetch = (request) => host.fetch(request);
  if (process.env.SWEEP_MS) host.startSweeper({ everyMs: Number(process.env.SWEEP_MS) });
}

serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => console.log(`listening ${info.port}`));
