/**
 * The tiny query interface the PostgreSQL store talks to, and thin adapters for the drivers people
 * use: node-postgres (`pg`) and `@neondatabase/serverless`'s `Pool`, postgres.js (`postgres`) and
 * PGlite (`@electric-sql/pglite`). The adapters take the driver's object as a parameter and describe
 * it structurally, so nothing here imports a driver.
 *
 * @module
 */
import {
  listenOnPglite,
  listenOnPool,
  listenOnPostgresJs,
  type PgListen,
  type PgliteListenerLike,
  type PostgresJsListenerLike,
} from "./listen.js";
import { KabooError, UserError } from "../../errors.js";
import { ThreadStoreError } from "../thread-store.js";

/**
 * A value the store binds to a statement's `$n`. The store casts in SQL where the type matters, and
 * sends JSON as text cast after (`$1::text::json`): a driver that types parameters from the statement
 * (postgres.js) would encode a string bound to a `json` parameter once more.
 */
export type PgParam = string | number | null;

/** A row as a driver returns it (column name to value). */
export type PgRow = Record<string, unknown>;

/** Runs one statement (on a pool, or inside a transaction). */
export interface PgQuery {
  /**
   * Runs one SQL statement with `$1 … $n` parameters.
   * @returns The rows it returned (`[]` for none).
   */
  query(text: string, params: readonly PgParam[]): Promise<{ rows: PgRow[] }>;
}

/** A database the store can use: statements, and interactive transactions. */
export interface PgQueryable extends PgQuery {
  /**
   * Runs `fn` in one transaction (`BEGIN … COMMIT`, `ROLLBACK` when it throws) on one connection.
   * @returns What `fn` resolved to.
   */
  transaction<T>(fn: (tx: PgQuery) => Promise<T>): Promise<T>;
  /**
   * LISTEN, where the driver can (the adapters of pg, postgres.js and PGlite give it): a reattach in
   * another server then wakes on an append's NOTIFY instead of waiting out its poll. Optional.
   */
  listen?: PgListen;
  /**
   * A hint: the database is embedded in this runtime (PGlite), so a statement costs no round trip, and each is
   * parsed and planned again. The store then sends two short statements where it would otherwise fold
   * them into one longer one to save a round trip (a ledger claim that finds its call's row). Optional;
   * absent, statements are taken to be round trips (`fromPglite` sets it).
   */
  inProcess?: boolean;
}

/** The part of a node-postgres (or Neon) client this adapter uses (its query-config form). */
export interface NodePostgresClientLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: PgRow[] }>;
}

/**
 * Statement names by text: the store's statements are a fixed few, each prepared once per connection.
 * Bounded, so that statements of your own sent through the same database (texts built on the fly) do not
 * prepare without end: past {@link MAX_NAMED} texts, a new one is sent unnamed.
 */
const names = new Map<string, string>();

/** How many distinct statement texts are named (the store has a few dozen). */
const MAX_NAMED = 256;

function named(
  text: string,
  params: readonly PgParam[],
  prepare: boolean,
): { text: string; values?: unknown[]; name?: string } {
  if (params.length === 0) return { text };
  let name = prepare ? names.get(text) : undefined;
  if (name === undefined && prepare && names.size < MAX_NAMED) names.set(text, (name = `kaboo_${names.size + 1}`));
  const values = [...params];
  return name === undefined ? { text, values } : { name, text, values };
}

/** The part of a node-postgres `Pool` (or Neon's `Pool`) this adapter uses. */
export interface NodePostgresPoolLike extends NodePostgresClientLike {
  connect(): Promise<NodePostgresClientLike & { release(destroy?: boolean | Error): void }>;
}

/**
 * A node-postgres `Pool` as a {@link PgQueryable}: statements run on the pool, a transaction on one
 * client it lends (given back after, destroyed when its `ROLLBACK` failed). Statements with parameters
 * are sent as named prepared statements (`kaboo_1`, `kaboo_2`, …), parsed once per connection.
 *
 * @param pool - `new pg.Pool({ connectionString })`.
 * @param options - `prepare` (default `true`): `false` behind a pooler in transaction mode that does not
 *   keep prepared statements (PgBouncer before 1.21 or without `max_prepared_statements`). `listen` (default
 *   `true`): a reattach's wait for a run's next events holds one client of the pool in LISTEN while it waits;
 *   `false` behind a pooler in transaction mode, which cannot LISTEN (reattaches then poll).
 * @returns The database.
 * @example
 * ```ts
 * import pg from "pg";
 * const db = fromNodePostgres(new pg.Pool({ connectionString: databaseUrl }) // your connection string);
 * ```
 */
export function fromNodePostgres(
  pool: NodePostgresPoolLike,
  options: { prepare?: boolean; listen?: boolean } = {},
): PgQueryable {
  const prepare = options.prepare ?? true;
  needs(pool, ["query", "connect"], "fromNodePostgres (or fromNeon) needs a Pool of pg or @neondatabase/serverless");
  // Statements with parameters are named, so each connection parses and plans one only once.
  const on = (client: NodePostgresClientLike): PgQuery => ({
    query: async (text, params) => ({ rows: (await client.query(named(text, params, prepare))).rows }),
  });
  const listen = options.listen === false ? {} : { listen: listenOnPool(() => pool.connect() as never) };
  return {
    ...on(pool),
    ...listen,
    async transaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query({ text: "BEGIN" });
        const out = await fn(on(client));
        await client.query({ text: "COMMIT" });
        return out;
      } catch (error) {
        await client.query({ text: "ROLLBACK" }).catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

/**
 * `@neondatabase/serverless`'s `Pool` (WebSocket: interactive transactions, in Node, Workers and edge
 * functions) as a {@link PgQueryable}. Its API is node-postgres's; its HTTP `neon()` function has no
 * interactive transaction, so the store cannot run on it. Statements are not prepared by name by
 * default: Neon's pooled endpoints run PgBouncer in transaction mode.
 *
 * @param pool - `new Pool({ connectionString })` from `@neondatabase/serverless`.
 * @param options - `prepare` (default `false`; see {@link fromNodePostgres}).
 * @returns The database.
 */
export function fromNeon(pool: NodePostgresPoolLike, options: { prepare?: boolean } = {}): PgQueryable {
  // Neon's pooled endpoints cannot LISTEN: reattaches on another server poll.
  return fromNodePostgres(pool, { prepare: options.prepare ?? false, listen: false });
}

/** The part of a postgres.js `sql` (or its transaction's `sql`) this adapter uses. */
export interface PostgresJsLike {
  unsafe(query: string, parameters?: never[], options?: { prepare?: boolean }): PromiseLike<readonly PgRow[]>;
  begin<T>(fn: (sql: PostgresJsTransactionLike) => Promise<T>): PromiseLike<unknown>;
  listen?: PostgresJsListenerLike["listen"];
}

/** The part of a postgres.js transaction's `sql` this adapter uses. */
export interface PostgresJsTransactionLike {
  unsafe(query: string, parameters?: never[], options?: { prepare?: boolean }): PromiseLike<readonly PgRow[]>;
}

/**
 * `sql.unsafe`'s options for a statement with parameters: prepared (postgres.js's `unsafe` does not by
 * default), once per connection, unless the connection was made with `prepare: false`.
 */
const PREPARE = { prepare: true };

/**
 * A postgres.js `sql` as a {@link PgQueryable} (`sql.unsafe` for statements, `sql.begin` for transactions).
 * Statements with parameters are prepared, once per connection: unprepared, postgres.js asks the server
 * to describe each one first, a second round trip. Behind a pooler in transaction mode that does not keep
 * prepared statements, make the `sql` with `postgres(url, { prepare: false })`: that turns it off here too.
 *
 * @param sql - `postgres(databaseUrl)`, with your connection string.
 * @returns The database.
 */
export function fromPostgresJs(sql: PostgresJsLike): PgQueryable {
  needs(sql, ["unsafe", "begin"], "fromPostgresJs needs the sql function that postgres(url) returns");
  const on = (s: PostgresJsTransactionLike): PgQuery => ({
    query: async (text, params) => ({
      rows: [...(await (params.length ? s.unsafe(text, [...params] as never[], PREPARE) : s.unsafe(text)))],
    }),
  });
  const listen = typeof sql.listen === "function" ? { listen: listenOnPostgresJs(sql as PostgresJsListenerLike) } : {};
  return {
    ...on(sql),
    ...listen,
    transaction: async <T>(fn: (tx: PgQuery) => Promise<T>) => (await sql.begin((tx) => fn(on(tx)))) as T,
  };
}

/** The part of a PGlite database (or its transaction) this adapter uses. */
export interface PgliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  transaction<T>(
    fn: (tx: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>,
  ): Promise<T>;
  listen?: PgliteListenerLike["listen"];
}

/**
 * A PGlite database (PostgreSQL in WASM, embedded: no server) as a {@link PgQueryable}.
 *
 * @param db - `await PGlite.create(dataDir?)`.
 * @returns The database.
 */
export function fromPglite(db: PgliteLike): PgQueryable {
  needs(db, ["query", "transaction"], "fromPglite needs a PGlite database (await PGlite.create())");
  const on = (d: Pick<PgliteLike, "query">): PgQuery => ({
    query: async (text, params) => ({ rows: (await d.query(text, [...params])).rows as PgRow[] }),
  });
  const listen = typeof db.listen === "function" ? { listen: listenOnPglite(db as PgliteListenerLike) } : {};
  return { ...on(db), ...listen, inProcess: true, transaction: (fn) => db.transaction((tx) => fn(on(tx))) };
}

/**
 * Checks that a value given for a driver's object has the methods the adapter calls.
 *
 * @param value - What the caller passed.
 * @param methods - The methods it must have.
 * @param what - The message, naming what to pass.
 * @throws {UserError} When one is missing.
 */
export function needs(value: unknown, methods: readonly string[], what: string): void {
  const missing = methods.filter((m) => typeof (value as Record<string, unknown> | null)?.[m] !== "function");
  if (missing.length) throw new UserError(`${what}; it has no ${missing.join(" or ")} method.`);
}

/** SQLSTATEs of a transaction that lost to another and may simply run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

/** The SQLSTATE of a driver's error, when it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Runs a step of the store, turning a driver's error into a {@link ThreadStoreError} (a missing table
 * says to run `migrate`); a transaction that lost a deadlock or a serialization race runs again.
 *
 * @param what - What the step does, for the message.
 * @param step - The step; safe to run again.
 * @returns What the step resolved to.
 */
export async function pgStep<T>(what: string, step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (cause) {
      if (cause instanceof KabooError) throw cause;
      const state = sqlState(cause);
      if (state !== undefined && RETRYABLE.has(state) && attempt < 4) continue;
      const hint =
        state === "42P01"
          ? " Its tables are missing: run migrate(db) first."
          : state === "22021"
            ? " A thread id, run id or call key holds a NUL character, which PostgreSQL's text cannot."
            : "";
      throw new ThreadStoreError(`PostgreSQL failed (${what}).${hint}`, { cause });
    }
  }
}

/**
 * A stored number as a JavaScript number: drivers return `bigint` columns as strings (pg, postgres.js)
 * or bigints (PGlite).
 */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}
