/**
 * Grants on Cloudflare Durable Objects: one {@link KabooGrants} object per principal
 * (`idFromName("p:" + principal)`), so every isolate in every region reads and revokes one record,
 * and one directory object that lists the principals (for `list()` and `revokeAll()`).
 *
 * @module
 */
import type { Grant } from "../../grants/grant.js";
import {
  PrincipalGrantStore,
  type PrincipalGrantBackend,
  type PrincipalGrantStoreOptions,
} from "../principal-grants.js";
import { ThreadStoreError } from "../thread-store.js";

/** The part of a Durable Object's `ctx.storage.sql` the grants use. */
interface Sql {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): Record<string, unknown>[] };
}

/** A Durable Object namespace binding (`env.KABOO_GRANTS`). */
export interface GrantsNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

type GrantOp =
  | { op: "list" }
  | { op: "put"; id: string; body: string }
  | { op: "remove"; ids: string[] }
  | { op: "clear" }
  | { op: "register"; principal: string }
  | { op: "principals" };

const DIRECTORY = "\u0000principals";

/**
 * The Durable Object class of one principal's grants (and of the directory of principals). Export
 * it from your Worker and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "KABOO_GRANTS"
 * class_name = "KabooGrants"
 * [[migrations]]
 * tag = "v2"
 * new_sqlite_classes = ["KabooGrants"]
 * ```
 *
 * @example
 * ```ts
 * export { KabooGrants } from "kaboo-workflows/stores/durable-object";
 * ```
 */
export class KabooGrants {
  readonly #sql: Sql;

  /**
   * @param ctx - The Durable Object state (SQLite-backed storage).
   * @param _env - The Worker's env (unused).
   */
  constructor(ctx: { storage: { sql: Sql } }, _env?: unknown) {
    this.#sql = ctx.storage.sql;
    this.#sql.exec("CREATE TABLE IF NOT EXISTS kaboo_grants (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
    this.#sql.exec("CREATE TABLE IF NOT EXISTS kaboo_principals (name TEXT PRIMARY KEY)");
  }

  /**
   * Serves one operation of {@link DurableObjectGrantStore} (JSON in, JSON out).
   * @param request - A POST.
   * @returns The answer as JSON, or 400/500 with `{ error }`.
   */
  async fetch(request: Request): Promise<Response> {
    let op: GrantOp;
    try {
      op = (await request.json()) as GrantOp;
    } catch {
      return Response.json({ error: "the body is not JSON" }, { status: 400 });
    }
    try {
      return Response.json(this.#apply(op));
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
    }
  }

  #apply(op: GrantOp): unknown {
    const sql = this.#sql;
    switch (op.op) {
      case "list":
        return {
          bodies: sql
            .exec("SELECT body FROM kaboo_grants ORDER BY rowid")
            .toArray()
            .map((r) => r.body),
        };
      case "put":
        // Delete first so a re-grant moves to the end, like a fresh insertion.
        sql.exec("DELETE FROM kaboo_grants WHERE id = ?", String(op.id));
        sql.exec("INSERT INTO kaboo_grants (id, body) VALUES (?, ?)", String(op.id), String(op.body));
        return { ok: true };
      case "remove": {
        let n = 0;
        for (const id of Array.isArray(op.ids) ? op.ids : [])
          n += sql.exec("DELETE FROM kaboo_grants WHERE id = ? RETURNING id", String(id)).toArray().length;
        return { removed: n };
      }
      case "clear":
        sql.exec("DELETE FROM kaboo_grants");
        return { ok: true };
      case "register":
        sql.exec("INSERT INTO kaboo_principals (name) VALUES (?) ON CONFLICT(name) DO NOTHING", String(op.principal));
        return { ok: true };
      case "principals":
        return {
          names: sql
            .exec("SELECT name FROM kaboo_principals ORDER BY name")
            .toArray()
            .map((r) => r.name),
        };
      default: {
        const never: never = op;
        throw new Error(`unknown operation ${JSON.stringify((never as { op?: unknown }).op)}`);
      }
    }
  }
}

/** Options of {@link DurableObjectGrantStore}. */
export interface DurableObjectGrantStoreOptions extends PrincipalGrantStoreOptions {
  /** Prefix of the object names, to share a namespace. Default `""`. */
  prefix?: string;
}

/**
 * A server {@link grants!GrantStore | GrantStore} over a {@link KabooGrants} binding: each principal's grants in one
 * object. Give it to `createAguiHandler({ stores: { grants } })`.
 *
 * @example
 * ```ts
 * export { KabooGrants, KabooThread } from "kaboo-workflows/stores/durable-object";
 * const grantStore = new DurableObjectGrantStore(env.KABOO_GRANTS);
 * createAguiHandler({ agent, stores: { thread: store, grants: grantStore }, trust: { secret, principal } });
 * await grantStore.revokePrincipal("ann", "transfer"); // every isolate, next request
 * ```
 */
export class DurableObjectGrantStore extends PrincipalGrantStore {
  /**
   * @param namespace - The binding of the {@link KabooGrants} class.
   * @param options - `prefix` (default `""`), `now` (default `Date.now`), `audit` (default none).
   */
  constructor(namespace: GrantsNamespaceLike, options: DurableObjectGrantStoreOptions = {}) {
    super(objectBackend(namespace, options.prefix ?? ""), options);
  }
}

function objectBackend(namespace: GrantsNamespaceLike, prefix: string): PrincipalGrantBackend {
  const call = async (name: string, op: GrantOp): Promise<Record<string, unknown>> => {
    const stub = namespace.get(namespace.idFromName(prefix + name) as never);
    let response: Response;
    try {
      response = await stub.fetch("https://kaboo-grants.internal/", { method: "POST", body: JSON.stringify(op) });
    } catch (cause) {
      throw new ThreadStoreError(`The grants' Durable Object could not be reached (${op.op}).`, { cause });
    }
    const answer = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || answer === null)
      throw new ThreadStoreError(
        `The grants' Durable Object failed (${op.op}): ${String(answer?.error ?? response.status)}`,
      );
    return answer;
  };
  const of = (principal: string) => `p:${principal}`;
  // Principals this instance has registered in the directory: a grant writes there once per isolate.
  const registered = new Set<string>();
  return {
    async list(principal) {
      const { bodies } = await call(of(principal), { op: "list" });
      return (Array.isArray(bodies) ? bodies : []).map((b) => parseOrNull(b));
    },
    async put(principal, id, grant: Grant) {
      if (!registered.has(principal)) {
        await call(DIRECTORY, { op: "register", principal });
        registered.add(principal);
      }
      await call(of(principal), { op: "put", id, body: JSON.stringify(grant) });
    },
    async remove(principal, ids) {
      const { removed } = await call(of(principal), { op: "remove", ids: [...ids] });
      return typeof removed === "number" ? removed : 0;
    },
    async clear(principal) {
      await call(of(principal), { op: "clear" });
    },
    async principals() {
      const { names } = await call(DIRECTORY, { op: "principals" });
      return (Array.isArray(names) ? names : []).filter((n): n is string => typeof n === "string");
    },
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
