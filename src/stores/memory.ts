/**
 * `kaboo-workflows/stores/memory`: a {@link ThreadStore} in one process's memory, for a Node
 * server with a single process, and for tests. Every step is synchronous inside, so it is atomic.
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { decideClaim, releasable, decideSettle, type LedgerRow } from "../agent/ledger/claim-rule.js";
import {
  emptyThread,
  logWrite,
  type LedgerHolder,
  type LoggedEvents,
  type ThreadData,
  type ThreadRecord,
  type ThreadStore,
} from "./thread-store.js";

export { MemoryAuditLog } from "../agent/audit/audit.js";
export { MemoryGrantStore } from "../grants/store.js";
export {
  emptyThread,
  InvalidThreadRecordError,
  MAX_ANSWERED,
  THREAD_RECORD_FORMAT,
  ThreadStoreError,
} from "./thread-store.js";
export type * from "./thread-store-types.js";

/** Options of {@link MemoryThreadStore}. */
export interface MemoryThreadStoreOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * Threads and their ledgers in a `Map`. Nothing survives a restart and nothing is shared between
 * processes: with more than one process (or isolate) use the Durable Object or Deno KV store.
 *
 * @example
 * ```ts
 * import { MemoryThreadStore } from "kaboo-workflows/stores/memory";
 * const handle = createAguiHandler({ agent, stores: { thread: new MemoryThreadStore() } });
 * ```
 */
export class MemoryThreadStore implements ThreadStore {
  // Records are kept as JSON text so a caller can never change a stored record through a reference.
  readonly #threads = new Map<string, string>();
  readonly #ledgers = new Map<string, Map<string, LedgerRow>>();
  readonly #events = new Map<string, Map<string, { events: string[]; endedAt: number | null; writer?: string }>>();
  readonly #now: () => number;

  /** @param options - `now` (default `Date.now`). */
  constructor(options: MemoryThreadStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async load(threadId: string): Promise<ThreadRecord> {
    const text = this.#threads.get(threadId);
    return text === undefined ? emptyThread() : (JSON.parse(text) as ThreadRecord);
  }

  async compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    const text = this.#threads.get(threadId);
    const current = text === undefined ? 0 : (JSON.parse(text) as ThreadRecord).version;
    if (current !== expectedVersion) return false;
    const { owner, session, messages, state, answered, lease, updatedAt } = data;
    const record: ThreadRecord = {
      version: expectedVersion + 1,
      owner,
      session,
      messages,
      state,
      answered,
      lease,
      updatedAt,
    };
    this.#threads.set(threadId, JSON.stringify(record));
    return true;
  }

  async appendEvents(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
    writer?: LedgerHolder,
  ): Promise<void> {
    let runs = this.#events.get(threadId);
    if (!runs) this.#events.set(threadId, (runs = new Map()));
    let run = runs.get(runId);
    if (!run) runs.set(runId, (run = { events: [], endedAt: null }));
    // Only the next batch of the log's writer counts: a batch written again (a retried write) changes nothing.
    const write = logWrite(run.events.length, run.writer, from, writer);
    if (!write || run.endedAt !== null) return;
    if (write === "cut") run.events.length = from;
    if (writer) run.writer = writer.token;
    run.events.push(...events.map((e) => JSON.stringify(e)));
    if (ended) run.endedAt = this.#now();
  }

  async readEvents(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    const run = this.#events.get(threadId)?.get(runId);
    if (!run) return undefined;
    return { events: run.events.slice(after + 1).map((e) => JSON.parse(e) as JsonValue), ended: run.endedAt !== null };
  }

  async compactEvents(threadId: string, before: number): Promise<void> {
    const runs = this.#events.get(threadId);
    for (const [runId, run] of runs ?? []) if (run.endedAt !== null && run.endedAt < before) runs?.delete(runId);
  }

  ledger(threadId: string): ExecutionLedger {
    let rows = this.#ledgers.get(threadId);
    if (!rows) {
      rows = new Map();
      this.#ledgers.set(threadId, rows);
    }
    return new MemoryThreadLedger(rows, this.#now);
  }
}

class MemoryThreadLedger implements ExecutionLedger {
  readonly #rows: Map<string, LedgerRow>;
  readonly #now: () => number;

  constructor(rows: Map<string, LedgerRow>, now: () => number) {
    this.#rows = rows;
    this.#now = now;
  }

  async claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    const { outcome, write } = decideClaim(this.#rows.get(key), this.#now(), options);
    if (write) this.#rows.set(key, write);
    return structuredClone(outcome);
  }

  async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    const row = decideSettle(this.#rows.get(key), token, result);
    if (row) this.#rows.set(key, row);
  }

  async release(key: string, token: string): Promise<void> {
    if (releasable(this.#rows.get(key), token)) this.#rows.delete(key);
  }
}
