/**
 * The audit trail of each thread on PostgreSQL: one row per entry in `kaboo_audit`, primary key
 * `(thread_id, seq)`, written with `INSERT … ON CONFLICT DO NOTHING`, so of two processes appending
 * at once exactly one takes each sequence number; the other reads the new tail and tries the next.
 *
 * @module
 */
import { ChainedAuditLog, type AuditChainStorage, type AuditEntry } from "../../agent/audit/audit.js";
import { needs, pgStep, type PgQuery } from "./queryable.js";

/** Options of {@link PostgresAuditLog}. */
export interface PostgresAuditLogOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * The audit trail of each thread, hash-chained, in the same database as `PostgresThreadStore`.
 *
 * @example
 * ```ts
 * const db = fromNodePostgres(pool);
 * await migrate(db);
 * createAguiHandler({ agent, stores: { thread: new PostgresThreadStore(db), audit: new PostgresAuditLog(db) } });
 * ```
 */
export class PostgresAuditLog extends ChainedAuditLog {
  /**
   * @param db - The database (`migrate(db)` run once before).
   * @param options - `now` (default `Date.now`).
   */
  constructor(db: PgQuery, options: PostgresAuditLogOptions = {}) {
    needs(
      db,
      ["query"],
      "PostgresAuditLog needs a database from fromNodePostgres, fromPostgresJs, fromNeon or fromPglite",
    );
    super(pgAuditStorage(db), options.now);
  }
}

function pgAuditStorage(db: PgQuery): AuditChainStorage {
  return {
    last: (threadId) =>
      pgStep("audit read", async () => {
        const { rows } = await db.query("SELECT body FROM kaboo_audit WHERE thread_id = $1 ORDER BY seq DESC LIMIT 1", [
          threadId,
        ]);
        const body = rows[0]?.body;
        return typeof body === "string" ? (JSON.parse(body) as AuditEntry) : undefined;
      }),
    insert: (entry, text) =>
      pgStep("audit write", async () => {
        const { rows } = await db.query(
          "INSERT INTO kaboo_audit (thread_id, seq, body) VALUES ($1, $2::integer, $3) ON CONFLICT (thread_id, seq) DO NOTHING RETURNING seq",
          [entry.threadId, entry.seq, text],
        );
        return rows.length === 1;
      }),
    list: (threadId) =>
      pgStep("audit list", async () => {
        const { rows } = await db.query("SELECT body FROM kaboo_audit WHERE thread_id = $1 ORDER BY seq", [threadId]);
        return rows.map((r) => parse(r.body));
      }),
  };
}

/** A stored entry's text as JSON; text that is not JSON is given as it is (the reader's verification fails it). */
function parse(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
