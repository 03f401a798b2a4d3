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
 * @module
 */
import { type AGUIEvent, EventType } from "@ag-ui/core";

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

/** Where a reattach goes on: after `after` (-1: the run from its start). */
export type Resolved = { after: number } | { invalid: true };

/** The attempts' first indexes in a run's events, kept as the events come, in index order. */
export class AttemptStarts {
  /** `[attempt, first index]`, attempts rising. */
  readonly #starts: [number, number][] = [];

  /** Takes event `index` of the run. */
  see(index: number, event: AGUIEvent): void {
    const attempt = markerAttempt(event);
    const last = this.#starts.at(-1);
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
