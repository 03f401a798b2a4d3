/**
 * One server process of the two-process test (postgres-processes.test.ts), bundled by it with
 * esbuild and run with Node: the bank agent behind createAguiHandler on PostgresThreadStore, on the
 * database named by DATABASE_URL. Every transfer that started is recorded in `test_started`, and
 * every one that moved money in `test_transfers` (with this process's NAME), so the test counts them
 * across processes. RUN_LEASE_MS sets the handler's `runLeaseMs`. Prints `listening <port>`.
 */
import { serve } from "@hono/node-server";
import pg from "pg";
import { createAguiHandler } from "../../../src/agui/index.js";
import { fromNodePostgres, PostgresGrantStore, PostgresThreadStore } from "../../../src/stores/postgres.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { capturingLogger } from "../../fixtures/logger.js";

const name = process.env.NAME ?? "?";
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 8 });
const db = fromNodePostgres(pool);
const handler = createAguiHandler({
  agent: (_, { secret }) =>
    bankAgent(newBank(), {
      tools: ["balance"],
      gate: { subject: "key", secret },
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
    }),
  stores: { thread: new PostgresThreadStore(db), grants: new PostgresGrantStore(db) },
  trust: { principal: (request) => request.headers.get("x-user") ?? "ann" },
  logger: capturingLogger(),
  ...(process.env.RUN_LEASE_MS ? { timing: { runLeaseMs: Number(process.env.RUN_LEASE_MS) } } : {}),
});

serve({ fetch: handler, port: 0, hostname: "127.0.0.1" }, (info) => console.log(`listening ${info.port}`));
