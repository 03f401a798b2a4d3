/**
 * The audit trail of each thread in Deno KV: one key per entry (`[prefix, "audit", threadId, seq]`),
 * written with `atomic().check({ versionstamp: null })`, so of two isolates (or processes) appending
 * at once exactly one takes each sequence number; the other re-reads the tail and tries the next.
 *
 * @module
 */
import { ChainedAuditLog, type AuditChainStorage, type AuditEntry } from "../../agent/audit/audit.js";
import { StoreBusyError, isLocked, whileBusy } from "../busy.js";
import { ThreadStoreError } from "../thread-store.js";

type Key = readonly (string | number)[];

/** The part of `Deno.AtomicOperation` the audit trail uses. */
export interface KvAuditAtomicLike {
  check(...checks: { key: Key; versionstamp: string | null }[]): KvAuditAtomicLike;
  set(key: Key, value: unknown): KvAuditAtomicLike;
  commit(): Promise<{ ok: boolean }>;
}

/** The part of `Deno.Kv` the audit trail uses. */
export interface KvAuditLike {
  atomic(): KvAuditAtomicLike;
  list(selector: { prefix: Key }, options?: { reverse?: boolean; limit?: number }): AsyncIterable<{ value: unknown }>;
}

/** Options of {@link DenoKvAuditLog}. */
export interface DenoKvAuditLogOptions {
  /** First key part (the thread store's). Default `"kaboo"`. */
  prefix?: string;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * The audit trail of each thread in Deno KV (the same database as `DenoKvThreadStore`).
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv();
 * Deno.serve(createAguiHandler({ agent, stores: { thread: new DenoKvThreadStore(kv), audit: new DenoKvAuditLog(kv) } }));
 * ```
 */
export class DenoKvAuditLog extends ChainedAuditLog {
  /**
   * @param kv - An open `Deno.Kv`.
   * @param options - `prefix` (default `"kaboo"`), `now` (default `Date.now`).
   */
  constructor(kv: KvAuditLike, options: DenoKvAuditLogOptions = {}) {
    super(kvStorage(kv, options.prefix ?? "kaboo"), options.now);
  }
}

function kvStorage(kv: KvAuditLike, prefix: string): AuditChainStorage {
  const base = (threadId: string): Key => [prefix, "audit", threadId];
  // A locked local database (another process writing) is waited out; each step is safe to repeat.
  const guard = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    try {
      return await whileBusy(step, isLocked, what);
    } catch (cause) {
      if (cause instanceof StoreBusyError) throw cause;
      throw new ThreadStoreError(`Deno KV failed (${what}).`, { cause });
    }
  };
  return {
    last: (threadId) =>
      guard("audit read", async () => {
        for await (const row of kv.list({ prefix: base(threadId) }, { reverse: true, limit: 1 }))
          return typeof row.value === "string" ? (JSON.parse(row.value) as AuditEntry) : undefined;
        return undefined;
      }),
    insert: (entry, text) =>
      guard("audit write", async () => {
        const key = [...base(entry.threadId), entry.seq];
        const { ok } = await kv.atomic().check({ key, versionstamp: null }).set(key, text).commit();
        return ok;
      }),
    list: (threadId) =>
      guard("audit list", async () => {
        const out: unknown[] = [];
        for await (const row of kv.list({ prefix: base(threadId) })) out.push(parse(row.value));
        return out;
      }),
  };
}

function parse(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
