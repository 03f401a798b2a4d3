/**
 * The bank assistant as an AG-UI endpoint for Node, its threads, ledger, grants and audit trail in
 * PostgreSQL: PGlite (PostgreSQL in WASM, a folder of files, no server to install) by default, a real
 * server when a `databaseUrl` is given. Served with Hono on `@hono/node-server` by serve.mjs
 * (`npm run example:node`); a pending approval survives a restart, and several processes may share
 * one real database. The handler is served through `PostgresRunHost`, whose sweeper runs again a run
 * whose process died (in this process after a restart, or in another one sharing the database).
 */
import { PGlite } from "@electric-sql/pglite";
import { Hono } from "hono";
import { createAguiHandler } from "kaboo-workflows/agui";
import {
  fromNodePostgres,
  fromPglite,
  migrate,
  PostgresAuditLog,
  PostgresGrantStore,
  PostgresRunHost,
  PostgresThreadStore,
  type PgQueryable,
} from "kaboo-workflows/stores/postgres";
import pg from "pg";
import { bankAgent, principalOf } from "../shared/bank.ts";

/** Settings of {@link createApp}. */
export interface NodeExampleSettings {
  /** A PostgreSQL URL (`DATABASE_URL`); without it, PGlite in `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite's folder. */
  dataDir: string;
  /** Grant secret (signed "always allow" grants). */
  secret?: string | undefined;
  openAiApiKey?: string | undefined;
  openAiModel?: string | undefined;
  bankApiUrl?: string | undefined;
}

/**
 * The Hono app, its database migrated.
 *
 * @returns The app's `fetch`, and `close()`: stops the sweeper, then closes the database.
 */
export async function createApp(settings: NodeExampleSettings) {
  let db: PgQueryable;
  let close: () => Promise<void>;
  if (settings.databaseUrl) {
    const pool = new pg.Pool({ connectionString: settings.databaseUrl });
    db = fromNodePostgres(pool);
    close = () => pool.end();
  } else {
    const lite = await PGlite.create(settings.dataDir);
    db = fromPglite(lite);
    close = () => lite.close();
  }
  await migrate(db);
  const audit = new PostgresAuditLog(db);
  const handle = createAguiHandler({
    stores: { thread: new PostgresThreadStore(db), grants: new PostgresGrantStore(db, { audit }), audit },
    trust: { principal: principalOf, ...(settings.secret ? { secret: settings.secret } : {}) },
    cors: { headers: ["content-type", "accept", "x-kaboo-user", "last-event-id"] },
    agent: (_threadId, context) =>
      bankAgent({
        openAiApiKey: settings.openAiApiKey,
        openAiModel: settings.openAiModel,
        secret: context.secret,
        bankApiUrl: settings.bankApiUrl,
      }),
  });
  const host = new PostgresRunHost(db, { handler: handle });
  const sweeper = host.startSweeper();
  const app = new Hono();
  app.all("/", (c) => host.fetch(c.req.raw));
  return {
    fetch: app.fetch,
    close: async () => {
      await sweeper.stop();
      await close();
    },
  };
}
