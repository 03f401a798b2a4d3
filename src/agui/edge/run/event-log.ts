/**
 * The thread's event log at the edge: every event of a stored run is appended to the store in
 * batches (a few writes per run, not one per event), so a client can reattach from its last event
 * even in another isolate or after the one that ran it is gone. Logs are kept for the run's life
 * plus {@link DEFAULT_EVENT_LOG_RETENTION_MS}, then dropped when a later run of the thread starts;
 * what they held is in the thread's record (its transcript and state snapshots).
 *
 * @module
 */
import type { AGUIEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { JsonValue } from "../../../agent/messages/messages.js";
import { describe } from "../../../errors.js";
import type { Logger } from "../../../logger.js";
import { InvalidThreadRecordError, type LedgerHolder, type ThreadStore } from "../../../stores/thread-store.js";
import { EventLogIncompleteError } from "../errors.js";
import { AttemptStarts } from "./attempts.js";
import type { IndexedEvent } from "./run-hub.js";
import { isTerminal } from "../../run-events.js";

/** How long a finished run's events stay in the log: 10 minutes. */
export const DEFAULT_EVENT_LOG_RETENTION_MS = 10 * 60 * 1000;

/** Events wait at most this long for their batch to fill (the first event of a run is written at once). */
const BATCH_MS = 50;
/** A run no longer holding its thread whose log does not end within this long died unlogged. */
const ORPHAN_MS = 3_000;
/** Most events in one write. */
const MAX_BATCH = 128;

/**
 * A logged event read back and checked (storage lives outside this isolate).
 *
 * @param value - What the store gave back.
 * @returns The event, or `undefined` when it is not one `@ag-ui/core`'s schemas accept.
 */
function readLoggedEvent(value: unknown): AGUIEvent | undefined {
  const parsed = EventSchemas.safeParse(value);
  // The schemas' output is the union of the events, typed apart from AGUIEvent only by zod's inference.
  return parsed.success ? (parsed.data as AGUIEvent) : undefined;
}

/** Writes one run's events to its thread's log, in order, a batch at a time. */
export class EventLogWriter {
  readonly #store: ThreadStore;
  readonly #threadId: string;
  readonly #runId: string;
  readonly #log: Logger;
  readonly #from: number;
  readonly #writer: LedgerHolder | undefined;
  #batch: IndexedEvent[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #failed = false;
  /** Writes made so far (for the benchmark's cost per run). */
  writes = 0;

  /**
   * @param o - The store (with `appendEvents`), the run, where a failed write is reported, and the
   *   index of its first event the log does not hold yet (default 0; a run again goes on after its
   *   dead attempt's events), and the run attempt that writes (see `ThreadStore.appendEvents`).
   */
  constructor(o: {
    store: ThreadStore;
    threadId: string;
    runId: string;
    log: Logger;
    from?: number | undefined;
    writer?: LedgerHolder | undefined;
  }) {
    this.#from = o.from ?? 0;
    this.#writer = o.writer;
    this.#store = o.store;
    this.#threadId = o.threadId;
    this.#runId = o.runId;
    this.#log = o.log;
  }

  /** Takes one event of the run (in index order). */
  add(e: IndexedEvent): void {
    if (e.index < this.#from) return;
    this.#batch.push(e);
    if (isTerminal(e.event) || this.#batch.length >= MAX_BATCH || e.index === this.#from) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), BATCH_MS);
  }

  /** Resolves when every event taken so far is written (or its write failed). */
  settled(): Promise<void> {
    this.#flush();
    return this.#chain;
  }

  #flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batch;
    this.#batch = [];
    if (!batch.length || this.#failed) return;
    this.#chain = this.#chain.then(() => this.#write(batch));
  }

  async #write(batch: IndexedEvent[]): Promise<void> {
    const first = batch[0] as IndexedEvent;
    const ended = isTerminal((batch.at(-1) as IndexedEvent).event);
    try {
      this.writes++;
      const events = batch.map((e) => e.event as unknown as JsonValue);
      await this.#store.appendEvents?.(this.#threadId, this.#runId, first.index, events, ended, this.#writer);
    } catch (error) {
      // The live stream goes on; only a client that reattaches elsewhere misses the rest.
      this.#failed = true;
      this.#log.warn("kaboo: could not write a run's events to its thread's log", {
        threadId: this.#threadId,
        error: describe(error),
      });
    }
  }
}

/** An event read back from the log: its index and the attempt that sent it (see attempts.ts). */
export interface LoggedEvent extends IndexedEvent {
  attempt: number;
}

/** A run's logged events read back so far, checked (storage lives outside this isolate). */
export class ReadBack {
  readonly events: AGUIEvent[] = [];
  readonly starts = new AttemptStarts();
  /** The index of an event that does not read back: the log is read no further. */
  malformed: number | undefined;

  constructor(readonly runId: string) {}

  /** Takes the next events of the log. */
  take(values: readonly JsonValue[]): void {
    for (const value of values) {
      if (this.malformed !== undefined) return;
      const event = readLoggedEvent(value);
      if (!event) this.malformed = this.events.length;
      else {
        this.starts.see(this.events.length, event);
        this.events.push(event);
      }
    }
  }

  at(index: number): LoggedEvent {
    return { index, event: this.events[index] as AGUIEvent, attempt: this.starts.attemptAt(index) };
  }

  check(): void {
    if (this.malformed !== undefined)
      throw new InvalidThreadRecordError(`Event ${this.malformed} of run "${this.runId}" in the log is malformed.`);
  }
}

/**
 * A run's events read back from the log after the client's last one, then, while the run goes on
 * elsewhere, polled until its last event (or until the thread no longer names the run: it died
 * unlogged). An event of a dead attempt that the log never had (a run again's events, or a give-up's
 * RUN_NOT_RESUMED, took its place) is answered with the run from its start (see attempts.ts).
 *
 * @param o - The store, the thread and run, the client's last event (index -1: none; its attempt),
 *   whether that is an id the handler sent (`strict`: an index beyond a log that ended is refused),
 *   how often to poll (ms).
 * @returns The events, `undefined` when the log has no such run, `"invalid"` when no attempt of it
 *   sent such an event.
 */
export async function loggedRun(o: {
  store: ThreadStore;
  threadId: string;
  runId: string;
  from: { index: number; attempt: number };
  strict?: boolean | undefined;
  pollMs?: number | undefined;
}): Promise<AsyncIterable<LoggedEvent> | "invalid" | undefined> {
  // A run that holds its thread but has not written its first batch yet is logged, just empty.
  const first =
    (await o.store.readEvents?.(o.threadId, o.runId, -1)) ??
    ((await o.store.load(o.threadId)).lease?.runId === o.runId ? { events: [], ended: false } : undefined);
  if (!first) return undefined;
  const log = new ReadBack(o.runId);
  log.take(first.events);
  const where = (ended: boolean) =>
    log.starts.resolve(o.from, { length: log.events.length, ended: ended && o.strict === true, pending: true });
  const resolved = where(first.ended && log.malformed === undefined);
  if ("invalid" in resolved) return "invalid";
  return (async function* tail(): AsyncGenerator<LoggedEvent> {
    let sent = resolved.after;
    let logged = first;
    let orphanedAt: number | undefined;
    for (;;) {
      for (let i = sent + 1; i < log.events.length; i = sent + 1) {
        sent = i;
        yield log.at(i);
      }
      log.check();
      if (logged.ended) return;
      // The run's last batch is written just after it lets go of the thread: wait a little for it.
      const held = (await o.store.load(o.threadId)).lease?.runId === o.runId;
      orphanedAt = held || logged.events.length ? undefined : (orphanedAt ?? Date.now());
      // Ended without its last event logged: say so, rather than end the stream as if the run went on.
      if (orphanedAt !== undefined && Date.now() - orphanedAt > ORPHAN_MS)
        throw new EventLogIncompleteError(
          `The log of run "${o.runId}" ends at event ${log.events.length - 1}, before the run's end; ` +
            "the thread's record has its outcome.",
        );
      // Woken early by the store where it can tell (PostgreSQL's NOTIFY); else a poll.
      const ms = o.pollMs ?? 250;
      await (o.store.waitForEvents?.(o.threadId, o.runId, ms) ?? new Promise((r) => setTimeout(r, ms)));
      const ahead = sent >= log.events.length;
      logged = (await o.store.readEvents?.(o.threadId, o.runId, log.events.length - 1)) ?? { events: [], ended: true };
      log.take(logged.events);
      // Nothing sent yet (the client was ahead of the log): a run again may have taken its event's place.
      const again = ahead ? where(false) : undefined;
      if (again && "after" in again && again.after < sent) sent = again.after;
    }
  })();
}
