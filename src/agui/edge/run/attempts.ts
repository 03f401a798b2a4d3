/**
 * The attempts of one stored run in its event log. A run that died is run again under its own id
 * (see dead-attempt.ts); the run again's first event is a CUSTOM {@link RUN_AGAIN_EVENT} marker,
 * logged right after the dead attempt's last logged event, and its ids say which attempt sent them
 * (`<runId>:<n>.<attempt>`; the first attempt's stay `<runId>:<n>`). A live client reads events up
 * to a batch before they are logged, so it may hold ids of the dead attempt beyond the marker's
 * index: events the log never had, whose places the run again's events took. A reattach from such
 * an id is answered with the run from its RUN_STARTED: what the client held of the run is void, and
 * it starts its view over (as a reattach without an id does).
 *
 * A dead run given up instead of run again (PostgresRunHost's sweeper, a Durable Object's alarm) ends
 * its log with a RUN_ERROR `RUN_NOT_RESUMED` after the dead attempt's last logged event: that event
 * starts an attempt of its own, numbered after every attempt that held the thread (see
 * `runNotResumedEvent`), so the same rule holds. A reattach from an id the dead attempt sent beyond
 * the log gets the run from its RUN_STARTED to that error; from the error's own id
 * (`<runId>:<n>.<attempt>`), nothing more (the run ended); from a logged id, the rest.
 *
 * @module
 */
import { type AGUIEvent, EventType } from "@ag-ui/core";
import { GIVE_UP_ATTEMPT_KEY, RUN_NOT_RESUMED } from "../../../stores/run-again.js";

/** Name of the CUSTOM event that starts a run again's own events: `value` is `{ attempt }` (1, 2, …). */
export const RUN_AGAIN_EVENT = "kaboo_run_again";

/**
 * The marker a run again's events start with.
 *
 * @param attempt - Which attempt of the run it is (the first run again is 1).
 * @param timestamp - Its timestamp.
 * @returns A CUSTOM event.
 */
export function runAgainMarker(attempt: number, timestamp: number): AGUIEvent {
  return { type: EventType.CUSTOM, name: RUN_AGAIN_EVENT, value: { attempt }, timestamp };
}

/**
 * The attempt a marker starts.
 *
 * @param e - Any event of the run.
 * @returns The attempt, or `undefined` when `e` is not a well-formed marker.
 */
function markerAttempt(e: AGUIEvent): number | undefined {
  if (e.type !== EventType.CUSTOM || e.name !== RUN_AGAIN_EVENT) return undefined;
  const attempt = (e.value as { attempt?: unknown } | null | undefined)?.attempt;
  return typeof attempt === "number" && Number.isSafeInteger(attempt) && attempt > 0 ? attempt : undefined;
}

/**
 * The attempt a give-up's RUN_ERROR names (see `runNotResumedEvent`).
 *
 * @param e - Any event of the run.
 * @returns The attempt it names (0 when it names none: a log written before it did), or `undefined`
 *   when `e` is not a give-up.
 */
function givenUpAttempt(e: AGUIEvent): number | undefined {
  if (e.type !== EventType.RUN_ERROR || e.code !== RUN_NOT_RESUMED) return undefined;
  const named = (e.metadata as Record<string, unknown> | undefined)?.[GIVE_UP_ATTEMPT_KEY];
  return typeof named === "number" && Number.isSafeInteger(named) && named > 0 ? named : 0;
}

/** Where a reattach goes on: after `after` (-1: the run from its start). */
export type Resolved = { after: number } | { invalid: true };

/** The attempts' first indexes in a run's events, kept as the events come, in index order. */
export class AttemptStarts {
  /** `[attempt, first index]`, attempts rising. */
  readonly #starts: [number, number][] = [];

  /** Takes event `index` of the run. */
  see(index: number, event: AGUIEvent): void {
    const last = this.#starts.at(-1);
    const named = index > 0 ? givenUpAttempt(event) : undefined;
    // A give-up is an attempt after every one the log names, and the lease's (which it names).
    const attempt = named === undefined ? markerAttempt(event) : Math.max(named, (last?.[0] ?? 0) + 1);
    if (attempt !== undefined && (last === undefined || (attempt > last[0] && index > last[1])))
      this.#starts.push([attempt, index]);
  }

  /** The attempt that sent event `index` (0 when no run again started at or before it). */
  attemptAt(index: number): number {
    for (let i = this.#starts.length - 1; i >= 0; i--) {
      const [attempt, start] = this.#starts[i] as [number, number];
      if (start <= index) return attempt;
    }
    return 0;
  }

  /** The latest attempt seen. */
  get last(): number {
    return this.#starts.at(-1)?.[0] ?? 0;
  }

  /**
   * Where a reattach from event `index` of `attempt` goes on.
   *
   * @param from - The client's last event (from its id).
   * @param o - How many events the run has so far, whether they are all of it, and `pending`: an
   *   attempt after the latest seen may be running and not yet logged its marker.
   * @returns After the client's event; from the start (-1) when a later attempt's events took its
   *   place (it was never logged); invalid when no attempt of the run sent such an id.
   */
  resolve(from: { index: number; attempt: number }, o: { length: number; ended: boolean; pending: boolean }): Resolved {
    const { index, attempt } = from;
    const own = this.#starts.find(([a]) => a === attempt);
    if (own && own[1] > index) return { invalid: true };
    const next = this.#starts.find(([a]) => a > attempt);
    if (next) return { after: next[1] <= index ? -1 : index };
    // The latest attempt: its events are these, or it runs and has not logged its marker yet.
    const known = attempt === 0 || own !== undefined || (o.pending && !o.ended && attempt === this.last + 1);
    if (!known || (o.ended && index >= o.length)) return { invalid: true };
    return { after: index };
  }
}
