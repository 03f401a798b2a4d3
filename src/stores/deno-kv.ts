/**
 * `kaboo-workflows/stores/deno-kv`: threads kept in Deno KV (`Deno.openKv()`, local SQLite or Deno
 * Deploy). Writes are compare-and-set with `atomic().check(versionstamp)`, so two isolates racing
 * on one thread cannot both win, and a ledger claim is one checked write.
 *
 * Deno KV holds at most 64 KiB per value: records and tool results are stored as chunks under a
 * fresh generation id that only the checked head write makes visible. Types are structural (no
 * Deno types needed).
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
  logWrite,
  type LoggedEvents,
  type ThreadData,
  type ThreadRecord,
  ThreadStoreError,
  type ThreadStore,
} from "./thread-store.js";
import { isLocked, whileBusy, type BusyPolicy } from "./busy.js";
import { deleteChunks, readChunks, writeChunks, type KvAtomicLike, type KvLike } from "./deno-kv/chunks.js";
import { KvLedger, RETRIES } from "./deno-kv/ledger.js";

export { DenoKvAuditLog } from "./deno-kv/audit.js";
export { DenoKvGrantStore } from "./deno-kv/grants.js";
export type { DenoKvGrantStoreOptions, KvGrantsLike } from "./deno-kv/grants.js";
export { PrincipalGrantStore, grantsAuditThread } from "./principal-grants.js";
export type { ServerGrantStore } from "../grants/store.js";
export type { PrincipalGrantBackend, PrincipalGrantStoreOptions } from "./principal-grants.js";
export type { DenoKvAuditLogOptions, KvAuditAtomicLike, KvAuditLike } from "./deno-kv/audit.js";
export { DEFAULT_BUSY_TIMEOUT_MS, StoreBusyError } from "./busy.js";
export { InvalidThreadRecordError, MAX_ANSWERED, THREAD_RECORD_FORMAT, ThreadStoreError } from "./thread-store.js";
export type * from "./thread-store-types.js";
export type { KvAtomicLike, KvKeyLike, KvLike } from "./deno-kv/chunks.js";

/** Options of {@link DenoKvThreadStore}. */
export interface DenoKvThreadStoreOptions {
  /** First key part of everything this store writes. Default `"kaboo"`. */
  prefix?: string;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * How long one operation waits out a locked database ("database is locked": another process
   * writes the same local file) before the request ends with `STORE_BUSY` (retryable). Default 5000 ms.
   */
  busyTimeoutMs?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Head {
  version: number;
  gen: string;
  chunks: number;
  /** The token of the lease this version holds (`null`: none; absent: written before it was kept). */
  holder?: string | null;
}

/** Where a thread's logged events are: per run, its batches (chunked) and when it ended. */
interface EventIndex {
  runs: Record<
    string,
    {
      batches: { from: number; count: number; gen: string; chunks: number }[];
      endedAt: number | null;
      /** The token of the run attempt that last wrote (see `logWrite`). */
      writer?: string;
    }
  >;
}

/**
 * A {@link ThreadStore} on Deno KV.
 *
 * @example
 * ```ts
 * import { DenoKvThreadStore } from "kaboo-workflows/stores/deno-kv";
 * const store = new DenoKvThreadStore(await Deno.openKv());
 * Deno.serve(createAguiHandler({ agent, stores: { thread: store } }));
 * ```
 */
export class DenoKvThreadStore implements ThreadStore {
  readonly #kv: KvLike;
  readonly #prefix: string;
  readonly #now: () => number;

  /**
   * @param kv - An open `Deno.Kv` (`await Deno.openKv(path?)`, with `--unstable-kv` where needed).
   * @param options - `prefix` (default `"kaboo"`), `now` (default `Date.now`), `busyTimeoutMs` (default 5000).
   */
  constructor(kv: KvLike, options: DenoKvThreadStoreOptions = {}) {
    this.#kv = patientKv(kv, { timeoutMs: options.busyTimeoutMs });
    this.#prefix = options.prefix ?? "kaboo";
    this.#now = options.now ?? Date.now;
  }

  async load(threadId: string): Promise<ThreadRecord> {
    const headKey = [this.#prefix, "thread", threadId];
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const head = (await this.#kv.get(headKey)).value as Head | null;
      if (head === null) return emptyThread();
      const bytes = await readChunks(this.#kv, [this.#prefix, "chunk", threadId, head.gen], head.chunks);
      // A writer replaced this generation between the two reads: read the new head.
      if (bytes !== undefined) return decodeThread(decoder.decode(bytes));
    }
    throw new ThreadStoreError(`Thread "${threadId}" kept changing while it was read.`);
  }

  async compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    const headKey = [this.#prefix, "thread", threadId];
    const entry = await this.#kv.get(headKey);
    const head = entry.value as Head | null;
    if ((head?.version ?? 0) !== expectedVersion) return false;
    const gen = crypto.randomUUID();
    const base = [this.#prefix, "chunk", threadId, gen];
    // The chunks go in first, unreferenced; only the checked head write below makes them the record.
    const chunks = await writeChunks(this.#kv, base, encoder.encode(encodeThread(expectedVersion + 1, data)));
    const holder = data.lease?.token ?? null;
    const next: Head = { version: expectedVersion + 1, gen, chunks, holder };
    let write = this.#kv.atomic().check({ key: headKey, versionstamp: entry.versionstamp }).set(headKey, next);
    // Who holds the thread, under a key of its own that changes only with the holder: a run's claims
    // check it (see KvLedger), so a run that lost the thread claims nothing more.
    if (head?.holder !== holder) write = write.set([this.#prefix, "holder", threadId], holder);
    const { ok } = await write.commit();
    const stale = ok ? head : next;
    if (stale) await deleteChunks(this.#kv, [this.#prefix, "chunk", threadId, stale.gen], stale.chunks);
    return ok;
  }

  async appendEvents(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
    writer?: LedgerHolder,
  ): Promise<void> {
    const indexKey = [this.#prefix, "eventlog", threadId];
    const gen = crypto.randomUUID();
    const base = [this.#prefix, "events", threadId, gen];
    // The batch goes in first, unreferenced; only the checked index write below makes it part of the log.
    const chunks = await writeChunks(this.#kv, base, encoder.encode(JSON.stringify(events)));
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const entry = await this.#kv.get(indexKey);
      const index = (entry.value as EventIndex | null) ?? { runs: {} };
      const run = index.runs[runId] ?? { batches: [], endedAt: null };
      const next = run.batches.reduce((n, b) => Math.max(n, b.from + b.count), 0);
      // Only the next batch of the log's writer counts: a batch written again (a retried write) changes nothing.
      const write = logWrite(next, run.writer, from, writer);
      const kept = write === "cut" ? run.batches.filter((b) => b.from + b.count <= from) : run.batches;
      const cut = write === "cut" ? run.batches.filter((b) => b.from + b.count > from) : [];
      // A run again cuts only whole batches (it read the log at a batch's end).
      if (!write || run.endedAt !== null || cut.some((b) => b.from < from)) break;
      const batches = [...kept, { from, count: events.length, gen, chunks }];
      const by = writer ? { writer: writer.token } : run.writer ? { writer: run.writer } : {};
      const written: EventIndex = {
        runs: { ...index.runs, [runId]: { batches, endedAt: ended ? this.#now() : null, ...by } },
      };
      const { ok } = await this.#kv
        .atomic()
        .check({ key: indexKey, versionstamp: entry.versionstamp })
        .set(indexKey, written)
        .commit();
      if (ok) {
        for (const b of cut) await deleteChunks(this.#kv, [this.#prefix, "events", threadId, b.gen], b.chunks);
        return;
      }
    }
    await deleteChunks(this.#kv, base, chunks);
  }

  async readEvents(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    const index = (await this.#kv.get([this.#prefix, "eventlog", threadId])).value as EventIndex | null;
    const run = index?.runs[runId];
    if (!run) return undefined;
    const events: JsonValue[] = [];
    for (const b of run.batches) {
      if (b.from + b.count - 1 <= after) continue;
      const bytes = await readChunks(this.#kv, [this.#prefix, "events", threadId, b.gen], b.chunks);
      if (bytes === undefined) throw new ThreadStoreError(`A batch of run "${runId}" is missing from the event log.`);
      const batch = JSON.parse(decoder.decode(bytes)) as JsonValue[];
      events.push(...batch.slice(Math.max(0, after + 1 - b.from)));
    }
    return { events, ended: run.endedAt !== null };
  }

  async compactEvents(threadId: string, before: number): Promise<void> {
    const indexKey = [this.#prefix, "eventlog", threadId];
    const entry = await this.#kv.get(indexKey);
    const index = entry.value as EventIndex | null;
    if (!index) return;
    const old = Object.entries(index.runs).filter(([, r]) => r.endedAt !== null && r.endedAt < before);
    if (!old.length) return;
    const runs = Object.fromEntries(
      Object.entries(index.runs).filter(([, r]) => !(r.endedAt !== null && r.endedAt < before)),
    );
    const { ok } = await this.#kv
      .atomic()
      .check({ key: indexKey, versionstamp: entry.versionstamp })
      .set(indexKey, { runs })
      .commit();
    if (!ok) return;
    for (const [, r] of old)
      for (const b of r.batches) await deleteChunks(this.#kv, [this.#prefix, "events", threadId, b.gen], b.chunks);
  }

  /**
   * The thread's ledger. Each claim keeps the token of the run that made it (`holder`); a claim
   * without a result made by the run whose lease `holder.tookOver` names reads `unknown` at once
   * (that run is gone), and is written so for every later claim; any other live claim reads `running`.
   * A run that no longer holds the thread (it was taken over) claims nothing: every new claim of it reads
   * `running` (a call it was executing still settles: its result is recorded).
   */
  ledger(threadId: string, holder?: LedgerHolder): ExecutionLedger {
    const keys = {
      rows: [this.#prefix, "ledger", threadId],
      results: [this.#prefix, "result", threadId],
      holder: [this.#prefix, "holder", threadId],
    };
    return new KvLedger(this.#kv, keys, this.#now, holder);
  }
}

/**
 * The same KV, each operation retried while the database is locked. An atomic operation is recorded
 * and built afresh for every try: a commit that failed locked wrote nothing, and its checks still hold.
 */
function patientKv(kv: KvLike, policy: BusyPolicy): KvLike {
  const patient = <T>(what: string, step: () => Promise<T>) => whileBusy(step, isLocked, what, policy);
  return {
    get: (key) => patient("get", () => kv.get(key)),
    set: (key, value) => patient("set", () => kv.set(key, value)),
    delete: (key) => patient("delete", () => kv.delete(key)),
    atomic() {
      const steps: ((op: KvAtomicLike) => KvAtomicLike)[] = [];
      const add = (step: (op: KvAtomicLike) => KvAtomicLike) => {
        steps.push(step);
        return recorder;
      };
      const recorder: KvAtomicLike = {
        check: (...checks) => add((op) => op.check(...checks)),
        set: (key, value) => add((op) => op.set(key, value)),
        delete: (key) => add((op) => op.delete(key)),
        commit: () => patient("commit", () => steps.reduce((op, step) => step(op), kv.atomic()).commit()),
      };
      return recorder;
    },
  };
}
