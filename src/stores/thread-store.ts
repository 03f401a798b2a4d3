/**
 * The thread store: the server's own, authoritative record of one conversation at the edge —
 * the paused session, the transcript, which interrupts were answered and how the run that
 * answered them ended, the run that holds the thread now — plus the thread's execution ledger.
 *
 * Writes are compare-and-set on the record's `version`, so two isolates that race on one thread
 * cannot both win; ledger claims are atomic per call. Implementations live one per platform, each
 * in its own entry (`kaboo-workflows/stores/memory`, `/stores/durable-object`, `/stores/deno-kv`),
 * so a Worker bundle never pulls Deno code and the reverse. What the stored text of a record or a
 * ledger row means is `./thread-record-format.ts`'s.
 *
 * @module
 */
import type { LedgerRow } from "../agent/ledger/claim-rule.js";
import type { ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonObject, JsonValue } from "../agent/messages/messages.js";
import { KabooError } from "../errors.js";

export {
  decodeThread,
  emptyThread,
  encodeThread,
  InvalidThreadRecordError,
  parseLedgerRow,
  THREAD_RECORD_FORMAT,
} from "./thread-record-format.js";

/** How a run that answered interrupts ended, kept so a replay of its resume can be answered without running. */
export interface RecordedOutcome {
  /** The run that answered. */
  runId: string;
  /** Its `RUN_FINISHED` outcome (AG-UI), as sent. */
  outcome: JsonObject;
  /** Epoch ms. */
  at: number;
  /** Who sent the answers (their principal), when known: they may send them again for this outcome. */
  by?: string;
}

/** The run that holds a thread now; another run waits for it to end or for `expiresAt`. */
export interface ThreadLease {
  token: string;
  runId: string;
  /** Whether that run answers interrupts. */
  resume: boolean;
  /** Epoch ms; after it the lease is void (the isolate died mid-run). A live run renews it. */
  expiresAt: number;
  /** The thread's person asked this run to stop (written by a Stop that reached another isolate). */
  cancel?: boolean;
  /**
   * Which attempt of the run holds the thread: absent (0) for its first, 1, 2, … for each run again
   * under the same run id (its event ids name it, see `agui/edge/run/attempts.ts`).
   */
  attempt?: number;
}

/** The data of a thread (what {@link ThreadStore.compareAndSet} writes). */
export interface ThreadData {
  /** Who the thread belongs to (the handler's `principal`), once a run with one touched it. */
  owner: string | null;
  /** The paused session (`kaboo_session`: `interrupt_state`, `delegates`), or `null` when nothing waits. */
  session: JsonObject | null;
  /** The transcript as last sent (AG-UI messages). */
  messages: JsonValue[];
  /** The shared state as last sent, without the session. */
  state: JsonObject;
  /** Interrupt ids answered, with how the answering run ended (the latest {@link MAX_ANSWERED}). */
  answered: Record<string, RecordedOutcome>;
  /** The run that holds the thread, or `null`. */
  lease: ThreadLease | null;
  /** Epoch ms of the last write. */
  updatedAt: number;
}

/** A thread as read: its data and the version a write must name. `version: 0` = never written. */
export interface ThreadRecord extends ThreadData {
  version: number;
}

/** How many answered interrupts a record keeps (oldest dropped first). */
export const MAX_ANSWERED = 200;

/**
 * The authoritative server-side record of threads: the storage contract every host's runs rest on.
 * One instance serves many threads; every method takes the thread id.
 *
 * **Implementing a store** (memory, Durable Objects, Deno KV and PostgreSQL do; the shared contract
 * tests in `test/stores/contract.ts`, `holder-contract.ts` and `test/agent/ledger-contract.ts` tell
 * whether yours does):
 * - **Records with compare-and-set.** `load` returns the record and its version (0 and an empty record
 *   for a thread never written); `compareAndSet` writes version `expected + 1` only while the stored
 *   version is still `expected`, atomically (a conditional `UPDATE … WHERE version = $n`, an atomic
 *   check, a transaction). Everything the run core decides (take, refuse, replay, record) is built on it;
 *   store records as `encodeThread` writes them and read them with `decodeThread` (thread-record-format.ts), so a
 *   corrupt row is a typed error, never a silent empty thread.
 * - **Atomic claims with the one claim rule.** `ledger(threadId)` returns an `ExecutionLedger` whose
 *   `claim`, `settle` and `release` each read the call's row, call `decideClaim`, `decideSettle` or
 *   `releasable` (`agent/ledger/claim-rule.ts`) and write what they return, in one atomic step
 *   (`SELECT … FOR UPDATE` in a transaction, a readwrite transaction, an atomic commit). Never write the
 *   rule again: two processes that claim the same call at once must get exactly one `claimed`. Read a
 *   stored row back with `parseLedgerRow`: a corrupt row is an `unknown` claim, never "not run".
 * - **Holders** (optional but recommended): keep who made each claim (`LedgerHolder`), so a run that took
 *   the thread over from a dead one reads that run's open claims as `unknown` at once.
 * - **The event log** (optional): `appendEvents` is idempotent per `(run, from)` and follows
 *   the log's write rule (`logWrite`, below); `readEvents` answers a reattach from any process; `compactEvents` drops ended runs.
 *   Without it, a run can be reattached to only where it runs.
 *
 * Grants (`ServerGrantStore`) and the audit trail (`ChainedAuditLog` over an `AuditChainStorage`) are
 * contracts of their own, each with its contract test.
 *
 * @example
 * ```ts
 * const record = await store.load(threadId);
 * const ok = await store.compareAndSet(threadId, record.version, { ...record, lease: null, updatedAt: Date.now() });
 * ```
 */
export interface ThreadStore {
  /** The thread's record; a fresh, empty one at version 0 when there is none. */
  load(threadId: string): Promise<ThreadRecord>;
  /**
   * Writes `data` as version `expectedVersion + 1` if and only if the stored version is still
   * `expectedVersion` (0: the thread must not exist). Resolves to whether it was written.
   */
  compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean>;
  /**
   * The thread's execution ledger (claims are atomic per key).
   *
   * @param threadId - The thread.
   * @param holder - The run that claims through it, when a run holding the thread does: a store may
   *   keep who made each claim, and read a claim of the run this one took the thread over from as
   *   cut off (`unknown`) at once. Default: claims of no known run.
   */
  ledger(threadId: string, holder?: LedgerHolder): ExecutionLedger;
  /**
   * Appends events `from … from + events.length - 1` of a run to the thread's event log (a client
   * that lost the stream reads them back). `ended`: the last one ends the run. Writing the same
   * batch again changes nothing. Optional: without it, a run can be reattached to only where it runs.
   * `writer`: the run attempt writing (see {@link LedgerHolder}); the log keeps its last writer, and
   * follows the log's write rule: the next batch of that writer goes in; a run that took the thread over
   * from it writes on from where it read the log (cutting what it wrote after); any other writer's batch
   * changes nothing.
   */
  appendEvents?(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
    writer?: LedgerHolder,
  ): Promise<void>;
  /** The logged events of a run after index `after` (all for `-1`), or `undefined` when none are logged. */
  readEvents?(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined>;
  /** Drops the logs of the thread's runs that ended before `before` (epoch ms). */
  compactEvents?(threadId: string, before: number): Promise<void>;
  /**
   * Optional: waits until the run's log may have grown in another process (a notification, such as
   * PostgreSQL's NOTIFY) or `ms` passed. A reattach that reads a run going on elsewhere waits with it
   * between reads; without it, it sleeps `ms`. It only shortens the wait: what is read is `readEvents`'s.
   */
  waitForEvents?(threadId: string, runId: string, ms: number): Promise<void>;
}

/**
 * Who claims through a thread's ledger: the run that holds the thread, by its lease's token, and the
 * lease it took the thread over from. That lease had run out, and the compare-and-set that wrote this
 * run's lease over it succeeded, so its run can renew it no more: it died, or lost the thread (its own
 * last write fails). A claim it made and never settled was cut off with it.
 */
export interface LedgerHolder {
  /** This run's lease token. */
  token: string;
  /** The token of the lease this run's lease was written over, when there was one. */
  tookOver?: string | undefined;
}

/**
 * Whether a batch at `from` goes into a run's log that holds `next` events, last written by `current`:
 * the next batch of the log's writer (or of a writer given for the first time, or of none) goes in; a
 * run again that took the thread over from the log's writer writes on from where it read the log (a
 * batch that writer wrote after is cut); any other writer's batch changes nothing (a run that lost the
 * thread, woken late).
 *
 * @param next - How many events the log holds.
 * @param current - The log's last writer's token, when known.
 * @param from - The batch's first index.
 * @param writer - Who writes it, when known.
 * @returns `false` to drop it, `true` to append it, or `"cut"` to cut the log at `from` first.
 */
export function logWrite(
  next: number,
  current: string | undefined,
  from: number,
  writer: LedgerHolder | undefined,
): boolean | "cut" {
  if (writer === undefined || current === undefined || current === writer.token) return from === next;
  return writer.tookOver === current && from <= next ? "cut" : false;
}

/** What {@link ThreadStore.readEvents} returns. */
export interface LoggedEvents {
  /** The events after the index asked for, in order. */
  events: JsonValue[];
  /** Whether the run's last event is among the logged ones. */
  ended: boolean;
}

/** The platform's storage could not be reached, failed, or kept changing under a read. */
export class ThreadStoreError extends KabooError {
  readonly code = "THREAD_STORE_FAILED" as const;
}

/**
 * Keeps the latest {@link MAX_ANSWERED} answered interrupts (insertion order is age).
 *
 * @param answered - The record's map plus new entries.
 * @returns The bounded map.
 */
export function boundAnswered(answered: Record<string, RecordedOutcome>): Record<string, RecordedOutcome> {
  const entries = Object.entries(answered);
  return entries.length <= MAX_ANSWERED ? answered : Object.fromEntries(entries.slice(entries.length - MAX_ANSWERED));
}

/** One call in a ledger: the claim rule's record shape (agent/ledger/claim-rule.ts), kept by every store. */
export type { LedgerRow };

/** Keeps the `lease` of a record when it is still live at `now`. */
export function liveLease(record: ThreadData, now: number): ThreadLease | null {
  return record.lease !== null && record.lease.expiresAt > now ? record.lease : null;
}
