/**
 * `kaboo-workflows/stores/durable-object`: threads kept in Cloudflare Durable Objects, one object
 * per thread (`idFromName(threadId)`), on the SQLite-backed storage API. A Durable Object runs one
 * request at a time and its SQL runs synchronously inside it, so a compare-and-set and a claim
 * (`INSERT … ON CONFLICT DO NOTHING RETURNING`) are atomic across every isolate of the Worker.
 *
 * The Worker exports {@link KabooThread} and binds it with `new_sqlite_classes`; the handler gets a
 * {@link DurableObjectThreadStore} over the binding. Types are structural (no Workers types needed).
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../agent/ledger.js";
import {
  decideClaim,
  decodeThread,
  emptyThread,
  encodeThread,
  parseLedgerRow,
  releasable,
  settledRow,
  type LedgerRow,
  type ThreadData,
  type ThreadRecord,
  ThreadStoreError,
  type ThreadStore,
} from "./thread-store.js";
import { AUDIT_SCHEMA, applyAuditOp, isAuditOp, type AuditOp } from "./durable-object-audit.js";
import { StoreBusyError, whileBusy, type BusyPolicy } from "./busy.js";

export { DurableObjectAuditLog } from "./durable-object-audit.js";
export { DurableObjectGrantStore, KabooGrants } from "./durable-object-grants.js";
export type { DurableObjectGrantStoreOptions, GrantsNamespaceLike } from "./durable-object-grants.js";
export { PrincipalGrantStore, grantsAuditThread } from "./principal-grants.js";
export type { PrincipalGrantBackend, PrincipalGrantStoreOptions } from "./principal-grants.js";
export type { DurableObjectAuditLogOptions } from "./durable-object-audit.js";

export { DEFAULT_BUSY_TIMEOUT_MS, StoreBusyError } from "./busy.js";
export { InvalidThreadRecordError, MAX_ANSWERED, THREAD_RECORD_FORMAT, ThreadStoreError } from "./thread-store.js";
export type { RecordedOutcome, ThreadData, ThreadLease, ThreadRecord, ThreadStore } from "./thread-store.js";

/** The part of a Durable Object's `ctx.storage.sql` this store uses. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): Record<string, unknown>[] };
}

/** The part of a Durable Object's `ctx` (`DurableObjectState`) this store uses. */
export interface DurableObjectStateLike {
  storage: { sql: SqlStorageLike };
}

/** A Durable Object stub: what `namespace.get(id)` returns. */
export interface DurableObjectStubLike {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (`env.KABOO_THREAD`). */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): DurableObjectStubLike;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS kaboo_thread (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, body TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS kaboo_ledger (key TEXT PRIMARY KEY, token TEXT NOT NULL, claimed_at INTEGER NOT NULL, lease_expires_at INTEGER NOT NULL, result TEXT)",
  AUDIT_SCHEMA,
];

type Op =
  | { op: "load" }
  | { op: "cas"; expected: number; data: ThreadData }
  | { op: "claim"; key: string; options?: ClaimOptions }
  | { op: "settle"; key: string; token: string; result: LedgerResult }
  | { op: "release"; key: string; token: string };

/**
 * The Durable Object class of one thread. Export it from your Worker and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "KABOO_THREAD"
 * class_name = "KabooThread"
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["KabooThread"]
 * ```
 *
 * It answers POSTs from {@link DurableObjectThreadStore} only; it holds no other state.
 *
 * @example
 * ```ts
 * export { KabooThread } from "kaboo-workflows/stores/durable-object";
 * ```
 */
export class KabooThread {
  readonly #sql: SqlStorageLike;

  /**
   * @param ctx - The Durable Object state (SQLite-backed storage).
   * @param _env - The Worker's env (unused).
   */
  constructor(ctx: DurableObjectStateLike, _env?: unknown) {
    this.#sql = ctx.storage.sql;
    for (const statement of SCHEMA) this.#sql.exec(statement);
  }

  /**
   * Serves one store operation (JSON in, JSON out).
   *
   * @param request - A POST from {@link DurableObjectThreadStore}.
   * @returns The operation's answer as JSON, or 400 with `{ error }`.
   */
  async fetch(request: Request): Promise<Response> {
    let op: Op | AuditOp;
    try {
      op = (await request.json()) as Op | AuditOp;
    } catch {
      return Response.json({ error: "the body is not JSON" }, { status: 400 });
    }
    // Everything below is synchronous: nothing else runs in this object until it returns.
    try {
      return Response.json(this.#apply(op, Date.now()));
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
    }
  }

  #apply(op: Op | AuditOp, now: number): unknown {
    if (isAuditOp(op)) return applyAuditOp(this.#sql, op);
    switch (op.op) {
      case "load": {
        const row = this.#sql.exec("SELECT body FROM kaboo_thread WHERE id = 1").toArray()[0];
        return { body: typeof row?.body === "string" ? row.body : null };
      }
      case "cas":
        return { ok: this.#compareAndSet(op.expected, op.data) };
      case "claim":
        return this.#claim(op.key, now, op.options);
      case "settle": {
        const row = settledRow(this.#row(op.key), op.token, op.result);
        if (row) this.#sql.exec("UPDATE kaboo_ledger SET result = ? WHERE key = ?", JSON.stringify(row.result), op.key);
        return { ok: true };
      }
      case "release":
        if (releasable(this.#row(op.key), op.token)) this.#sql.exec("DELETE FROM kaboo_ledger WHERE key = ?", op.key);
        return { ok: true };
      default:
        throw new Error(`unknown operation ${JSON.stringify((op as { op?: unknown }).op)}`);
    }
  }

  #compareAndSet(expected: number, data: ThreadData): boolean {
    const body = encodeThread(expected + 1, data);
    const written =
      expected === 0
        ? this.#sql.exec(
            "INSERT INTO kaboo_thread (id, version, body) VALUES (1, 1, ?) ON CONFLICT(id) DO NOTHING RETURNING version",
            body,
          )
        : this.#sql.exec(
            "UPDATE kaboo_thread SET version = ?, body = ? WHERE id = 1 AND version = ? RETURNING version",
            expected + 1,
            body,
            expected,
          );
    return written.toArray().length === 1;
  }

  #claim(key: string, now: number, options: ClaimOptions | undefined): ClaimOutcome {
    const fresh = decideClaim(undefined, now, options);
    if (fresh.write && this.#insert(key, fresh.write)) return fresh.outcome;
    const { outcome, write } = decideClaim(this.#row(key), now, options);
    if (write) {
      this.#sql.exec(
        "UPDATE kaboo_ledger SET token = ?, claimed_at = ?, lease_expires_at = ?, result = NULL WHERE key = ?",
        write.token,
        write.claimedAt,
        write.leaseExpiresAt,
        key,
      );
    }
    return outcome;
  }

  /** Inserts a row unless the key exists; `true` when this call inserted it. */
  #insert(key: string, row: LedgerRow): boolean {
    return (
      this.#sql
        .exec(
          "INSERT INTO kaboo_ledger (key, token, claimed_at, lease_expires_at, result) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING key",
          key,
          row.token,
          row.claimedAt,
          row.leaseExpiresAt,
          row.result === undefined ? null : JSON.stringify(row.result),
        )
        .toArray().length === 1
    );
  }

  #row(key: string): LedgerRow | undefined {
    const r = this.#sql
      .exec("SELECT token, claimed_at, lease_expires_at, result FROM kaboo_ledger WHERE key = ?", key)
      .toArray()[0];
    if (!r) return undefined;
    let result: unknown;
    try {
      result = typeof r.result === "string" ? JSON.parse(r.result) : undefined;
    } catch {
      result = null;
    }
    return parseLedgerRow({ token: r.token, claimedAt: r.claimed_at, leaseExpiresAt: r.lease_expires_at, result });
  }
}

/** Options of {@link DurableObjectThreadStore}. */
export interface DurableObjectThreadStoreOptions {
  /** Prefix of the object names (`idFromName(prefix + threadId)`), to share a namespace. Default `""`. */
  prefix?: string;
  /**
   * How long a read, settle or release waits out an error the platform marks transient
   * (`retryable`, not `overloaded`) before the request ends with `STORE_BUSY`. Default 5000 ms.
   */
  busyTimeoutMs?: number;
}

/** Workers mark a Durable Object error the caller may retry with `retryable: true`. */
function transient(error: unknown): boolean {
  if (error instanceof StoreBusyError) return !overloaded(error.cause);
  return (error as { retryable?: unknown } | null)?.retryable === true && !overloaded(error);
}

/** An overloaded object must not be sent more work at once: the request ends busy instead. */
function overloaded(error: unknown): boolean {
  return (error as { overloaded?: unknown } | null)?.overloaded === true;
}

/**
 * A {@link ThreadStore} over a {@link KabooThread} Durable Object binding: each thread is its own
 * object, so its reads, writes and claims are serialised wherever the Worker runs.
 *
 * @example
 * ```ts
 * import { DurableObjectThreadStore, KabooThread } from "kaboo-workflows/stores/durable-object";
 * export { KabooThread };
 * export default {
 *   fetch: (request: Request, env: Env) =>
 *     createAguiHandler({ agent, store: new DurableObjectThreadStore(env.KABOO_THREAD) })(request),
 * };
 * ```
 */
export class DurableObjectThreadStore implements ThreadStore {
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #prefix: string;
  readonly #busy: BusyPolicy;

  /**
   * @param namespace - The binding of the {@link KabooThread} class.
   * @param options - `prefix` (default `""`), `busyTimeoutMs` (default 5000).
   */
  constructor(namespace: DurableObjectNamespaceLike, options: DurableObjectThreadStoreOptions = {}) {
    this.#namespace = namespace;
    this.#prefix = options.prefix ?? "";
    this.#busy = { timeoutMs: options.busyTimeoutMs };
  }

  async load(threadId: string): Promise<ThreadRecord> {
    const { body } = (await this.#call(threadId, { op: "load" })) as { body: string | null };
    return body === null ? emptyThread() : decodeThread(body);
  }

  async compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    return ((await this.#call(threadId, { op: "cas", expected: expectedVersion, data })) as { ok: boolean }).ok === true;
  }

  ledger(threadId: string): ExecutionLedger {
    const call = (op: Op) => this.#call(threadId, op);
    return {
      claim: async (key, options) => (await call(options ? { op: "claim", key, options } : { op: "claim", key })) as ClaimOutcome,
      settle: async (key, token, result) => void (await call({ op: "settle", key, token, result })),
      release: async (key, token) => void (await call({ op: "release", key, token })),
    };
  }

  async #call(threadId: string, op: Op): Promise<unknown> {
    // Reads and the holder's own settle/release are safe to send again; a write that may have landed is not.
    if (op.op === "load" || op.op === "settle" || op.op === "release")
      return whileBusy(() => this.#once(threadId, op), transient, op.op, this.#busy);
    return this.#once(threadId, op);
  }

  async #once(threadId: string, op: Op): Promise<unknown> {
    // A fresh stub per try: Cloudflare's advice after a transient error of an object.
    const stub = this.#namespace.get(this.#namespace.idFromName(this.#prefix + threadId) as never);
    let response: Response;
    try {
      response = await stub.fetch("https://kaboo-thread.internal/", { method: "POST", body: JSON.stringify(op) });
    } catch (cause) {
      if (transient(cause) || overloaded(cause))
        throw new StoreBusyError(`The thread's Durable Object is busy (${op.op}); try again.`, { cause });
      throw new ThreadStoreError(`The thread's Durable Object could not be reached (${op.op}).`, { cause });
    }
    const answer = (await response.json().catch(() => null)) as { error?: unknown } | null;
    if (!response.ok || answer === null) {
      throw new ThreadStoreError(`The thread's Durable Object failed (${op.op}): ${String(answer?.error ?? response.status)}`);
    }
    return answer;
  }
}
