/**
 * Per-conversation state of one EventPublisher, keyed by thread id, with a bounded size.
 *
 * @module
 */

/** What a publisher remembers about one conversation. */
export interface ThreadState {
  /** Fresh (non-resuming) invocations so far: the `#N` of the group suffix. */
  count: number;
  /** The group this conversation's events carry (`streamGroup` or `streamGroup#N`). */
  activeGroup: string;
  /** Whether an ERROR was published in the running invocation (the error latch). */
  errored: boolean;
  /** Invocations of this conversation in flight: a thread in use is never evicted. */
  running: number;
}

/**
 * Thread states, least recently started first. Past `max` entries the oldest idle ones go: a
 * long-lived publisher serving many conversations keeps at most `max` of them (plus any still
 * running). An evicted conversation that comes back starts its `#N` count again.
 */
export class ThreadStates {
  readonly #map = new Map<string | undefined, ThreadState>();
  readonly #max: number;

  /** @param max - Conversations remembered at most (idle ones beyond it are dropped, oldest first). */
  constructor(max: number) {
    this.#max = max;
  }

  /** How many conversations are remembered. */
  get size(): number {
    return this.#map.size;
  }

  /** The state of a conversation, if remembered (does not count as a use). */
  peek(threadId: string | undefined): ThreadState | undefined {
    return this.#map.get(threadId);
  }

  /**
   * The state of a conversation, created if new, and marked most recently used.
   * @param threadId - The conversation (`undefined` is a conversation of its own).
   * @param group - The publisher's base group, for a new state.
   */
  use(threadId: string | undefined, group: string): ThreadState {
    let state = this.#map.get(threadId);
    if (state) this.#map.delete(threadId);
    else state = { count: 0, activeGroup: group, errored: false, running: 0 };
    this.#map.set(threadId, state);
    if (this.#map.size > this.#max) this.#evict(threadId);
    return state;
  }

  #evict(keep: string | undefined): void {
    for (const [id, state] of this.#map) {
      if (this.#map.size <= this.#max) return;
      if (id !== keep && state.running === 0) this.#map.delete(id);
    }
  }
}
