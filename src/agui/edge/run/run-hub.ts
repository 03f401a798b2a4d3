/**
 * The events of one stored run, driven by the run itself and watched by any number of clients.
 * The run is pumped to its end whoever reads (a reader that goes away, or a runtime that simply
 * stops pulling a cancelled response, cannot stall it at a `yield`); each event gets its place
 * (`<runId>:<n>`, its SSE `id:`), and a client that reattaches after event n gets every later one,
 * then the live tail — no gap, no duplicate.
 *
 * @module
 */
import { type AGUIEvent, EventType } from "@ag-ui/core";
import { runError } from "../../run-events.js";
import { AttemptStarts, type Resolved } from "./attempts.js";
import { isTerminal } from "../../run-events.js";

/** One event of a run with its index in the run (0 = RUN_STARTED). */
export interface IndexedEvent {
  index: number;
  event: AGUIEvent;
}

/**
 * The SSE id of a run's event.
 *
 * @param runId - The run.
 * @param index - The event's index in the run.
 * @param attempt - The attempt that sent it (see attempts.ts). Default 0, the first.
 * @returns `<runId>:<index>`, or `<runId>:<index>.<attempt>` for a run again's event.
 */
export function eventId(runId: string, index: number, attempt = 0): string {
  return attempt === 0 ? `${runId}:${index}` : `${runId}:${index}.${attempt}`;
}

/**
 * Reads an SSE id back.
 *
 * @param id - A `Last-Event-ID` (untrusted).
 * @returns The run, index and attempt (0 without one), or `undefined` when it is not an id of this form.
 */
export function parseEventId(id: string): { runId: string; index: number; attempt: number } | undefined {
  const at = id.lastIndexOf(":");
  if (at <= 0) return undefined;
  // Decimal digits only, as eventId writes them: Number() also read "" as 0, "1e3" and "0x10".
  const parts = /^(0|[1-9][0-9]*)(?:\.([1-9][0-9]*))?$/.exec(id.slice(at + 1));
  if (!parts) return undefined;
  const index = Number(parts[1]);
  const attempt = parts[2] === undefined ? 0 : Number(parts[2]);
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(attempt)) return undefined;
  return { runId: id.slice(0, at), index, attempt };
}

/** One run's events as they happen, for every watcher. */
export class RunHub {
  /** The run these events are of. */
  readonly runId: string;
  readonly #events: AGUIEvent[] = [];
  readonly #index = new WeakMap<AGUIEvent, number>();
  readonly #waiters = new Set<() => void>();
  readonly #listeners: ((e: IndexedEvent) => void)[] = [];
  #ended = false;
  /** Where this run's own events go on after a dead attempt's (see {@link continueFrom}). */
  #ownFrom: number | undefined;
  /** Where each run again of this run starts (see attempts.ts). */
  readonly #attempts = new AttemptStarts();

  /** @param runId - The run. */
  constructor(runId: string) {
    this.runId = runId;
  }

  /** Whether the run has ended (its last event is in). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The run's RUN_STARTED, once it went out (its first event). */
  get started(): AGUIEvent | undefined {
    const first = this.#events[0];
    return first?.type === EventType.RUN_STARTED ? first : undefined;
  }

  /** How many events the run has sent so far. */
  get length(): number {
    return this.#events.length;
  }

  /**
   * Drives `events` to their end, keeping each one. A throw becomes a RUN_ERROR event.
   *
   * @param events - The run's events.
   * @param onEvent - Called with each event as it is kept (the event log writes from it).
   * @returns When the run has ended.
   */
  async pump(events: AsyncIterable<AGUIEvent>, onEvent?: (e: IndexedEvent) => void): Promise<void> {
    try {
      for await (const event of events) {
        this.#push(event, onEvent);
        if (isTerminal(event)) break;
      }
    } catch (error) {
      this.#push(runError(error), onEvent);
    } finally {
      this.#ended = true;
      this.#wake();
    }
  }

  /**
   * Keeps an event that went out before the run's own events are pumped: a hosted run's
   * RUN_STARTED, which its response sends before the run begins (index 0, as if pumped).
   *
   * @param event - The event.
   */
  keep(event: AGUIEvent): void {
    this.#push(event, undefined);
  }

  /**
   * Calls `listener` with every event kept so far, then with each one as it comes (the event log's
   * writer, attached once the run took its thread: RUN_STARTED went out before).
   *
   * @param listener - Called in index order.
   */
  attach(listener: (e: IndexedEvent) => void): void {
    for (const [index, event] of this.#events.entries()) listener({ index, event });
    this.#listeners.push(listener);
  }

  /**
   * Makes this run the run again of a dead attempt under the same id (see dead-attempt.ts): the
   * attempt's events after its RUN_STARTED take the places after this run's RUN_STARTED, and this
   * run's next event comes after them, so the hub numbers events as the thread's log does. Called
   * once, when this run's RUN_STARTED is its only event; a watcher of this run's own request
   * ({@link watch} with `own`, begun before) goes on from that RUN_STARTED to this run's next event.
   *
   * @param attempt - The dead attempt's events, RUN_STARTED first (it takes the place of this run's: the
   *   log holds it), then the run again's marker and the END events of its open parts.
   */
  continueFrom(attempt: readonly AGUIEvent[]): void {
    if (this.#events.length !== 1 || this.#ownFrom !== undefined) return;
    for (const [index, event] of attempt.entries()) {
      // Its RUN_STARTED is the one in the log: a reattach from the start reads the same events here and there.
      if (index === 0) this.#events[0] = event;
      else this.#events.push(event);
      this.#index.set(event, index);
      this.#attempts.see(index, event);
    }
    this.#ownFrom = this.#events.length;
    this.#wake();
  }

  /** The SSE id of an event this hub kept (see {@link eventId}). */
  idOf(event: AGUIEvent): string | undefined {
    const index = this.#index.get(event);
    return index === undefined ? undefined : eventId(this.runId, index, this.#attempts.attemptAt(index));
  }

  /**
   * The events after `after` (all of them for `-1`), then the live tail until the run ends.
   *
   * @param after - The index of the last event the watcher has.
   * @param own - The watcher is the run's own request's: a dead attempt's events (see
   *   {@link continueFrom}) are not shown to it, only this run's. Default `false`.
   * @returns The events.
   */
  watch(after = -1, own = false): AsyncGenerator<AGUIEvent> {
    return this.#watch(after, own && this.#ownFrom === undefined);
  }

  /**
   * The events a reattaching watcher missed, then the live tail (see `AttemptStarts.resolve`): after
   * its last event, or from the start when that is an event a dead attempt never logged.
   *
   * @param from - The index and attempt of its last event (index -1: none).
   * @param strict - `from` is an id this hub's run sent (a `Last-Event-ID`): one beyond a run that ended is refused.
   * @returns The events, or `undefined` when no attempt of the run sent such an event.
   */
  watchFrom(from: { index: number; attempt: number }, strict: boolean): AsyncGenerator<AGUIEvent> | undefined {
    const first = this.#resolve(from, strict);
    return "invalid" in first ? undefined : this.#watchFrom(from, strict);
  }

  async *#watchFrom(from: { index: number; attempt: number }, strict: boolean): AsyncGenerator<AGUIEvent> {
    // A run again takes its dead attempt's events in (continueFrom) once it holds the thread, before
    // its RUN_STARTED is kept unless hosted: wait for that (an event after RUN_STARTED would come
    // first anyway) before telling where this watcher was.
    while (from.index > 0 && this.#events.length < 2 && !this.#ended)
      await new Promise<void>((wake) => this.#waiters.add(wake));
    const at = this.#resolve(from, strict);
    if ("after" in at) yield* this.#watch(at.after, false);
  }

  #resolve(from: { index: number; attempt: number }, strict: boolean): Resolved {
    const ended = this.#ended && strict;
    return this.#attempts.resolve(from, { length: this.#events.length, ended, pending: false });
  }

  async *#watch(after: number, own: boolean): AsyncGenerator<AGUIEvent> {
    let next = Math.max(0, after + 1);
    for (;;) {
      for (;;) {
        if (own && next === 1) next = this.#ownFrom ?? 1;
        const event = this.#events[next];
        if (event === undefined) break;
        next++;
        yield event;
      }
      if (this.#ended) return;
      await new Promise<void>((wake) => this.#waiters.add(wake));
    }
  }

  #push(event: AGUIEvent, onEvent: ((e: IndexedEvent) => void) | undefined): void {
    const index = this.#events.length;
    this.#events.push(event);
    this.#index.set(event, index);
    // Numbered as the log numbers it when read back (a give-up's RUN_ERROR starts an attempt there).
    this.#attempts.see(index, event);
    onEvent?.({ index, event });
    for (const listener of this.#listeners) listener({ index, event });
    this.#wake();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}
