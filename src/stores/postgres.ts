/**
 * `kaboo-workflows/stores/postgres`: threads, their ledgers, event logs, audit trails and grants on
 * PostgreSQL (self-hosted, Neon, Supabase, RDS, or PGlite in process), for Node servers and
 * serverless functions where several processes share one database.
 *
 * The store talks to a tiny {@link PgQueryable} (a statement, an interactive transaction); adapters
 * wrap the drivers (`fromNodePostgres`, `fromPostgresJs`, `fromNeon`, `fromPglite`), and no driver is
 * imported here. Run {@link migrate} once at start-up. Records are compare-and-set on their version
 * in one statement; a ledger claim is atomic per call (see `postgres/ledger.ts`).
 *
 * @module
 */
import type { ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import {
  decodeThread,
  emptyThread,
  encodeThread,
  type LedgerHolder,
  type LoggedEvents,
  type ThreadData,
  type ThreadRecord,
  type ThreadStore,
} from "./thread-store.js";
import { appendEvents, compactEvents, readEvents } from "./postgres/events.js";
import { EventWaiters } from "./postgres/listen.js";
import { PgLedger } from "./postgres/ledger.js";
import { needs, pgStep, type PgQueryable } from "./postgres/queryable.js";

export { PostgresAuditLog } from "./postgres/audit.js";
export type { PostgresAuditLogOptions } from "./postgres/audit.js";
export { PostgresGrantStore } from "./postgres/grants.js";
export type { PostgresGrantStoreOptions } from "./postgres/grants.js";
export { PrincipalGrantStore, grantsAuditThread } from "./principal-grants.js";
export {
  migrate,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_SQL,
  POSTGRES_SCHEMA_VERSION,
  POSTGRES_VERSION_TABLE,
} from "./postgres/schema.js";
export type { MigrateResult, PostgresMigration } from "./postgres/schema.js";
export { fromNeon, fromNodePostgres, fromPglite, fromPostgresJs } from "./postgres/queryable.js";
export { EVENTS_CHANNEL } from "./postgres/listen.js";
export type {
  NodePostgresListenerLike,
  PgListen,
  PgliteListenerLike,
  PostgresJsListenerLike,
} from "./postgres/listen.js";
export { PostgresRunHost } from "./postgres/run-host.js";
export type { PostgresRunHostOptions, RunHostContext, RunSweeper, SweepResult } from "./postgres/run-host.js";
export { RunNotResumedError } from "./run-again.js";
export type {
  NodePostgresClientLike,
  NodePostgresPoolLike,
  PgliteLike,
  PgParam,
  PgQuery,
  PgQueryable,
  PgRow,
  PostgresJsLike,
  PostgresJsTransactionLike,
} from "./postgres/queryable.js";
export { InvalidThreadRecordError, MAX_ANSWERED, THREAD_RECORD_FORMAT, ThreadStoreError } from "./thread-store.js";
export type * from "./thread-store-types.js";

/** Options of {@link PostgresThreadStore}. */
export interface PostgresThreadStoreOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * A {@link ThreadStore} on PostgreSQL. One instance serves every thread; any number of processes may
 * share the database.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { fromNodePostgres, migrate, PostgresThreadStore } from "kaboo-workflows/stores/postgres";
 * const db = fromNodePostgres(new pg.Pool({ connectionString: databaseUrl }) // your connection string);
 * await migrate(db);
 * const handler = createAguiHandler({ agent, stores: { thread: new PostgresThreadStore(db) } });
 * ```
 */
export class PostgresThreadStore implements ThreadStore {
  readonly #db: PgQueryable;
  readonly #now: () => number;
  /** The reattaches waiting for runs' next events, on one LISTEN (where the driver can). */
  readonly #waiters: EventWaiters | undefined;

  /**
   * @param db - The database (`migrate(db)` run once before).
   * @param options - `now` (default `Date.now`).
   */
  constructor(db: PgQueryable, options: PostgresThreadStoreOptions = {}) {
    needs(
      db,
      ["query", "transaction"],
      "PostgresThreadStore needs a database from fromNodePostgres, fromPostgresJs, fromNeon or fromPglite",
    );
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#waiters = db.listen ? new EventWaiters(db.listen) : undefined;
  }

  load(threadId: string): Promise<ThreadRecord> {
    return pgStep("thread read", async () => {
      const { rows } = await this.#db.query("SELECT body FROM kaboo_threads WHERE thread_id = $1", [threadId]);
      const body = rows[0]?.body;
      return typeof body === "string" ? decodeThread(body) : emptyThread();
    });
  }

  /**
   * Writes the record, who holds the thread (its lease's token, which claims check) and when that
   * hold runs out (which a sweeper looks for), in one statement.
   */
  compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    return pgStep("thread write", async () => {
      const body = encodeThread(expectedVersion + 1, data);
      const holder = data.lease?.token ?? null;
      const expires = data.lease?.expiresAt ?? null;
      const { rows } =
        expectedVersion === 0
          ? await this.#db.query(
              "INSERT INTO kaboo_threads (thread_id, version, body, holder, lease_expires_at) VALUES ($1, 1, $2, $3, $4::bigint) ON CONFLICT (thread_id) DO NOTHING RETURNING version",
              [threadId, body, holder, expires],
            )
          : await this.#db.query(
              "UPDATE kaboo_threads SET version = version + 1, body = $3, holder = $4, lease_expires_at = $5::bigint WHERE thread_id = $1 AND version = $2::integer RETURNING version",
              [threadId, expectedVersion, body, holder, expires],
            );
      return rows.length === 1;
    });
  }

  /**
   * The thread's ledger. With `holder`, each claim keeps the run that made it: an open claim of the run
   * whose lease `holder.tookOver` names reads `unknown` at once (and is written so), and a run whose
   * lease is no longer the thread's claims nothing (every new claim reads `running`; a call it was
   * executing still settles).
   */
  ledger(threadId: string, holder?: LedgerHolder): ExecutionLedger {
    return new PgLedger(this.#db, threadId, this.#now, holder);
  }

  appendEvents(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
    writer?: LedgerHolder,
  ): Promise<void> {
    return appendEvents(this.#db, this.#now, threadId, runId, from, events, ended, writer);
  }

  readEvents(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    return readEvents(this.#db, threadId, runId, after);
  }

  compactEvents(threadId: string, before: number): Promise<void> {
    return compactEvents(this.#db, threadId, before);
  }

  /**
   * Waits for the run's next append in any process (LISTEN, where the driver can), or `ms`.
   * @param threadId - The thread.
   * @param runId - The run.
   * @param ms - The longest wait.
   */
  waitForEvents(threadId: string, runId: string, ms: number): Promise<void> {
    if (!this.#waiters) return new Promise((r) => setTimeout(r, ms));
    return this.#waiters.wait(threadId, runId, ms);
  }
}
