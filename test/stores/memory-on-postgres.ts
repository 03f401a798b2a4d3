/**
 * `MemoryThreadStore` as the edge tests know it, kept in PostgreSQL (PGlite, one database per test
 * file) instead: the `edge-postgres` test project aliases `src/stores/memory.js` to this module, so
 * the edge's attack tests run unchanged against a handler on `PostgresThreadStore`. Each instance
 * keeps its threads apart by a prefix of its own (a fresh store, as a new MemoryThreadStore is).
 */
import { PGlite } from "@electric-sql/pglite";
import type { ExecutionLedger } from "../../src/agent/ledger/ledger.js";
import type { JsonValue } from "../../src/agent/messages/messages.js";
import { fromPglite, migrate, PostgresThreadStore } from "../../src/stores/postgres.js";
import type {
  LedgerHolder,
  LoggedEvents,
  ThreadData,
  ThreadRecord,
  ThreadStore,
} from "../../src/stores/thread-store.js";

// The real module's other exports (MemoryAuditLog, MemoryGrantStore, emptyThread, errors…), by a path
// the alias does not match.
export * from "../../src/stores/./memory.js";

const db = fromPglite(await PGlite.create());
await migrate(db);

/** A thread store on PostgreSQL under the name and constructor of `MemoryThreadStore`. */
export class MemoryThreadStore implements ThreadStore {
  readonly #store: PostgresThreadStore;
  readonly #prefix = `${crypto.randomUUID()}/`;

  /** @param options - `now` (default `Date.now`). */
  constructor(options: { now?: () => number } = {}) {
    this.#store = new PostgresThreadStore(db, options);
  }

  load(threadId: string): Promise<ThreadRecord> {
    return this.#store.load(this.#prefix + threadId);
  }

  compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    return this.#store.compareAndSet(this.#prefix + threadId, expectedVersion, data);
  }

  ledger(threadId: string, holder?: LedgerHolder): ExecutionLedger {
    return this.#store.ledger(this.#prefix + threadId, holder);
  }

  appendEvents(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
    writer?: LedgerHolder,
  ): Promise<void> {
    return this.#store.appendEvents(this.#prefix + threadId, runId, from, events, ended, writer);
  }

  readEvents(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    return this.#store.readEvents(this.#prefix + threadId, runId, after);
  }

  compactEvents(threadId: string, before: number): Promise<void> {
    return this.#store.compactEvents(this.#prefix + threadId, before);
  }
}
