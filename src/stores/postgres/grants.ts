/**
 * Grants on PostgreSQL, per principal (`kaboo_grants`, keyed by the SHA-256 of the principal and of
 * the grant id: an id holds its subject, up to 4,096 characters, past what a btree index takes).
 * Every read goes to the database, so a revocation made by any process holds on the next request in
 * every other.
 *
 * @module
 */
import type { Grant } from "../../grants/grant.js";
import { sha256Hex } from "../../agent/shared/sha256.js";
import {
  PrincipalGrantStore,
  type PrincipalGrantBackend,
  type PrincipalGrantStoreOptions,
} from "../principal-grants.js";
import { needs, pgStep, type PgQuery } from "./queryable.js";

/** Options of {@link PostgresGrantStore}. */
export type PostgresGrantStoreOptions = PrincipalGrantStoreOptions;

/**
 * A server `GrantStore` on PostgreSQL. Give it to `createAguiHandler({ stores: { grants } })`; revoke a
 * person's grants with `revokePrincipal(principal, tool?)`.
 *
 * @example
 * ```ts
 * const grantStore = new PostgresGrantStore(db, { audit: new PostgresAuditLog(db) });
 * await grantStore.revokePrincipal("ann", "transfer");
 * ```
 */
export class PostgresGrantStore extends PrincipalGrantStore {
  /**
   * @param db - The database (`migrate(db)` run once before).
   * @param options - `now` (default `Date.now`), `audit` (default none).
   */
  constructor(db: PgQuery, options: PostgresGrantStoreOptions = {}) {
    needs(
      db,
      ["query"],
      "PostgresGrantStore needs a database from fromNodePostgres, fromPostgresJs, fromNeon or fromPglite",
    );
    super(pgGrantBackend(db), options);
  }
}

function pgGrantBackend(db: PgQuery): PrincipalGrantBackend {
  const key = (name: string) => sha256Hex(name);
  return {
    list: (principal) =>
      pgStep("grant read", async () => {
        const { rows } = await db.query("SELECT body FROM kaboo_grants WHERE principal_key = $1 ORDER BY ord", [
          key(principal),
        ]);
        return rows.map((r) => parseOrNull(r.body));
      }),
    put: (principal, id, grant: Grant) =>
      pgStep("grant write", async () => {
        await db.query(
          "INSERT INTO kaboo_grant_principals (principal_key, principal) VALUES ($1, $2) ON CONFLICT (principal_key) DO NOTHING",
          [key(principal), principal],
        );
        // A grant given again replaces the old one and moves last, as in every other store.
        await db.query(
          "INSERT INTO kaboo_grants (principal_key, id_key, body) VALUES ($1, $2, $3) " +
            "ON CONFLICT (principal_key, id_key) DO UPDATE SET body = EXCLUDED.body, ord = EXCLUDED.ord",
          [key(principal), key(id), JSON.stringify(grant)],
        );
      }),
    remove: (principal, ids) =>
      pgStep("grant revoke", async () => {
        const { rows } = await db.query(
          "DELETE FROM kaboo_grants WHERE principal_key = $1 AND id_key IN (SELECT json_array_elements_text($2::text::json)) RETURNING id_key",
          [key(principal), JSON.stringify(ids.map(key))],
        );
        return rows.length;
      }),
    clear: (principal) =>
      pgStep("grant revoke", async () => {
        await db.query("DELETE FROM kaboo_grants WHERE principal_key = $1", [key(principal)]);
      }),
    principals: () =>
      pgStep("grant read", async () => {
        const { rows } = await db.query("SELECT principal FROM kaboo_grant_principals ORDER BY ord", []);
        return rows.map((r) => String(r.principal));
      }),
  };
}

function parseOrNull(value: unknown): unknown {
  if (typeof value !== "string") return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}
