/**
 * The PostgreSQL store's tables and {@link migrate}. The SQL is exported for people who migrate with
 * their own tool: run each version's statements in order, then record the version in
 * `kaboo_schema_version` (as `migrate` does).
 *
 * JSON is stored as `text`, never `jsonb`: a record, a result and an event read back exactly as
 * written (jsonb reorders keys, and the audit chain hashes the text). Times are epoch ms (`bigint`).
 *
 * @module
 */
import { ThreadStoreError } from "../thread-store.js";
import { needs, num, pgStep, type PgQueryable } from "./queryable.js";

/** One schema version: the statements that bring the previous version to it. */
export interface PostgresMigration {
  version: number;
  statements: readonly string[];
}

/** The table that records which schema versions were applied. */
export const POSTGRES_VERSION_TABLE =
  "CREATE TABLE IF NOT EXISTS kaboo_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())";

/**
 * Every schema version, oldest first.
 *
 * - 1: threads (record text, version, the lease holder's token), ledger (one row per call, who claimed
 *   it, its result), event log (per run: next index, end, last writer; one row per event), audit trail
 *   (one row per entry), grants (per principal, keyed by the SHA-256 of principal and grant id).
 * - 2: hosted runs (per thread: the request of the run that holds it, without headers, and whom it
 *   is for), kept by `PostgresRunHost` so that its sweeper runs again a run whose process died; and
 *   beside each thread's holder, when its lease runs out (what the sweeper looks for).
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    statements: [
      "CREATE TABLE kaboo_threads (thread_id text PRIMARY KEY, version integer NOT NULL, body text NOT NULL, holder text)",
      "CREATE TABLE kaboo_ledger (thread_id text NOT NULL, key text NOT NULL, token text NOT NULL, claimed_at bigint NOT NULL, lease_expires_at bigint NOT NULL, holder text, result text, PRIMARY KEY (thread_id, key))",
      "CREATE TABLE kaboo_event_runs (thread_id text NOT NULL, run_id text NOT NULL, next integer NOT NULL, ended_at bigint, writer text, PRIMARY KEY (thread_id, run_id))",
      "CREATE TABLE kaboo_events (thread_id text NOT NULL, run_id text NOT NULL, idx integer NOT NULL, body text NOT NULL, PRIMARY KEY (thread_id, run_id, idx))",
      "CREATE TABLE kaboo_audit (thread_id text NOT NULL, seq integer NOT NULL, body text NOT NULL, PRIMARY KEY (thread_id, seq))",
      "CREATE TABLE kaboo_grant_principals (principal_key text PRIMARY KEY, principal text NOT NULL, ord bigserial)",
      "CREATE TABLE kaboo_grants (principal_key text NOT NULL, id_key text NOT NULL, body text NOT NULL, ord bigserial, PRIMARY KEY (principal_key, id_key))",
    ],
  },
  {
    version: 2,
    statements: [
      "CREATE TABLE kaboo_hosted_runs (thread_id text PRIMARY KEY, run_id text NOT NULL, token text NOT NULL, url text NOT NULL, body text NOT NULL, principal text, kept_at bigint NOT NULL, swept_at bigint)",
      "ALTER TABLE kaboo_threads ADD COLUMN lease_expires_at bigint",
    ],
  },
];

/** The latest schema version this package writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** The whole schema as one SQL script (every version, each recorded), for your own migration tool. */
export const POSTGRES_SCHEMA_SQL = [
  `${POSTGRES_VERSION_TABLE};`,
  ...POSTGRES_MIGRATIONS.flatMap((m) => [
    ...m.statements.map((s) => `${s};`),
    `INSERT INTO kaboo_schema_version (version) VALUES (${m.version});`,
  ]),
].join("\n");

/** The advisory lock every `migrate` takes first (an arbitrary constant: "kaboo" in ASCII). */
const MIGRATE_LOCK = 0x6b61626f6f;

/** What {@link migrate} found and left. */
export interface MigrateResult {
  /** The schema version before (0: no tables). */
  from: number;
  /** The schema version now. */
  to: number;
}

/**
 * Creates or upgrades the store's tables, idempotently, in one transaction. It first takes a
 * transaction-scoped advisory lock, so two processes migrating at once run one after the other
 * (the second finds the work done).
 *
 * @param db - The database.
 * @returns The version found and the version left.
 * @throws {ThreadStoreError} When the database holds a newer schema than this package knows, or fails.
 * @throws {UserError} When `db` is not a database from one of the adapters.
 * @example
 * ```ts
 * await migrate(db); // at start-up, before serving
 * ```
 */
export async function migrate(db: PgQueryable): Promise<MigrateResult> {
  needs(
    db,
    ["query", "transaction"],
    "migrate needs a database from fromNodePostgres, fromPostgresJs, fromNeon or fromPglite",
  );
  return pgStep("migrate", () =>
    db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`, []);
      await tx.query(POSTGRES_VERSION_TABLE, []);
      const { rows } = await tx.query("SELECT coalesce(max(version), 0) AS v FROM kaboo_schema_version", []);
      const from = num(rows[0]?.v ?? 0);
      if (from > POSTGRES_SCHEMA_VERSION)
        throw new ThreadStoreError(
          `The database's kaboo schema is version ${from}; this package knows up to ${POSTGRES_SCHEMA_VERSION}. Upgrade kaboo-workflows.`,
        );
      for (const m of POSTGRES_MIGRATIONS) {
        if (m.version <= from) continue;
        for (const statement of m.statements) await tx.query(statement, []);
        await tx.query("INSERT INTO kaboo_schema_version (version) VALUES ($1::integer)", [m.version]);
      }
      return { from, to: Math.max(from, POSTGRES_SCHEMA_VERSION) };
    }),
  );
}
