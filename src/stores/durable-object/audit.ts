/**
 * The audit trail of a thread kept in its `KabooThread` Durable Object: one SQLite row per entry,
 * keyed by sequence number, so of two isolates appending at once exactly one takes each number
 * (`INSERT … ON CONFLICT DO NOTHING`) and the other re-reads the tail and tries the next one.
 *
 * @module
 */
import { ChainedAuditLog, type AuditChainStorage, type AuditEntry } from "../../agent/audit/audit.js";
import { ThreadStoreError } from "../thread-store.js";

/** The part of a Durable Object's `ctx.storage.sql` the audit table uses. */
interface Sql {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): Record<string, unknown>[] };
}

/** A stub's `fetch` (what `namespace.get(id)` returns). */
interface Stub {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (`env.KABOO_THREAD`). */
interface Namespace {
  idFromName(name: string): unknown;
  get(id: never): Stub;
}

/** The audit table of a thread object. */
export const AUDIT_SCHEMA = "CREATE TABLE IF NOT EXISTS kaboo_audit (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)";

/** The audit operations a `KabooThread` object answers. */
export type AuditOp = { op: "audit_last" } | { op: "audit_insert"; seq: number; body: string } | { op: "audit_list" };

/**
 * Whether an operation is one of the audit trail's.
 * @param op - A parsed operation.
 * @returns `true` for {@link AuditOp}s.
 */
export function isAuditOp(op: { op?: unknown }): op is AuditOp {
  return op.op === "audit_last" || op.op === "audit_insert" || op.op === "audit_list";
}

/**
 * Applies one audit operation inside the object (synchronous SQL: atomic in the object).
 * @param sql - The object's SQL storage.
 * @param op - The operation.
 * @returns Its JSON answer.
 */
export function applyAuditOp(sql: Sql, op: AuditOp): unknown {
  switch (op.op) {
    case "audit_last":
      return { body: sql.exec("SELECT body FROM kaboo_audit ORDER BY seq DESC LIMIT 1").toArray()[0]?.body ?? null };
    case "audit_insert": {
      if (!Number.isInteger(op.seq) || op.seq < 0 || typeof op.body !== "string") throw new Error("bad audit entry");
      // Only the next number: an entry never lands past a gap.
      const top = sql.exec("SELECT COALESCE(MAX(seq), -1) AS top FROM kaboo_audit").toArray()[0]?.top;
      if (top !== op.seq - 1) return { ok: false };
      const rows = sql
        .exec(
          "INSERT INTO kaboo_audit (seq, body) VALUES (?, ?) ON CONFLICT(seq) DO NOTHING RETURNING seq",
          op.seq,
          op.body,
        )
        .toArray();
      return { ok: rows.length === 1 };
    }
    case "audit_list":
      return {
        bodies: sql
          .exec("SELECT body FROM kaboo_audit ORDER BY seq")
          .toArray()
          .map((r) => r.body),
      };
    default: {
      const never: never = op;
      throw new Error(`unknown audit operation ${JSON.stringify(never)}`);
    }
  }
}

/** Options of {@link DurableObjectAuditLog}. */
export interface DurableObjectAuditLogOptions {
  /** The thread store's `prefix` (object names are `prefix + threadId`). Default `""`. */
  prefix?: string;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * The audit trail of each thread in its `KabooThread` Durable Object (the same binding as
 * `DurableObjectThreadStore`): appends from every isolate land in one chain.
 *
 * @example
 * ```ts
 * const audit = new DurableObjectAuditLog(env.KABOO_THREAD);
 * createAguiHandler({ agent, stores: { thread: new DurableObjectThreadStore(env.KABOO_THREAD), audit } });
 * ```
 */
export class DurableObjectAuditLog extends ChainedAuditLog {
  /**
   * @param namespace - The binding of the `KabooThread` class.
   * @param options - `prefix` (default `""`), `now` (default `Date.now`).
   */
  constructor(namespace: Namespace, options: DurableObjectAuditLogOptions = {}) {
    super(objectStorage(namespace, options.prefix ?? ""), options.now);
  }
}

function objectStorage(namespace: Namespace, prefix: string): AuditChainStorage {
  const call = async (threadId: string, op: AuditOp): Promise<Record<string, unknown>> => {
    const stub = namespace.get(namespace.idFromName(prefix + threadId) as never);
    let response: Response;
    try {
      response = await stub.fetch("https://kaboo-thread.internal/", { method: "POST", body: JSON.stringify(op) });
    } catch (cause) {
      throw new ThreadStoreError(`The thread's Durable Object could not be reached (${op.op}).`, { cause });
    }
    const answer = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || answer === null) {
      throw new ThreadStoreError(
        `The thread's Durable Object failed (${op.op}): ${String(answer?.error ?? response.status)}`,
      );
    }
    return answer;
  };
  return {
    async last(threadId) {
      const { body } = await call(threadId, { op: "audit_last" });
      return typeof body === "string" ? (JSON.parse(body) as AuditEntry) : undefined;
    },
    async insert(entry, text) {
      return (await call(entry.threadId, { op: "audit_insert", seq: entry.seq, body: text })).ok === true;
    },
    async list(threadId) {
      const { bodies } = await call(threadId, { op: "audit_list" });
      return (Array.isArray(bodies) ? bodies : []).map((b) => (typeof b === "string" ? safeParse(b) : b));
    },
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
