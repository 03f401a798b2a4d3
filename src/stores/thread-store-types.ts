/**
 * The thread-store types every store entry (`kaboo-workflows/stores/memory`, `…/durable-object`,
 * `…/deno-kv`) exports, named once.
 *
 * @module
 */
export type {
  LedgerHolder,
  LoggedEvents,
  RecordedOutcome,
  ThreadData,
  ThreadLease,
  ThreadRecord,
  ThreadStore,
} from "./thread-store.js";
