/**
 * A tiny push/pull queue: producers push events, one async iterator pulls them.
 * Lets concurrent tool calls stream their events out of `agent.stream()` as they happen.
 *
 * @module
 */
export class EventQueue<T> {
  #items: T[] = [];
  #waiting: (() => void) | undefined;
  /** The reader has handled every item and asks for the next. */
  #idle = false;
  /** Waiting for the reader to have handled every item ({@link EventQueue.read}). */
  #readers: (() => void)[] = [];

  push(item: T): void {
    this.#items.push(item);
    this.#idle = false;
    const wake = this.#waiting;
    this.#waiting = undefined;
    wake?.();
  }

  /** Yields pushed items until `done` settles and the queue is empty; rethrows `done`'s rejection. */
  async *drain<R>(done: Promise<R>): AsyncGenerator<T, R> {
    let settled = false;
    const finished = done.then(
      (value) => {
        settled = true;
        this.#waiting?.();
        return value;
      },
      (error: unknown) => {
        settled = true;
        this.#waiting?.();
        throw error;
      },
    );
    // Avoid an unhandled rejection while we are still yielding items.
    finished.catch(() => undefined);
    for (;;) {
      while (this.#items.length) yield this.#items.shift() as T;
      if (settled) return await finished;
      this.#idle = true;
      for (const read of this.#readers.splice(0)) read();
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }

  /**
   * Resolves once the reader has handled every item pushed so far (it asks for the next), or after as
   * many microtask turns as a reader that handles items synchronously needs for them: a reader busy with
   * work of its own (a write per event), or one that stopped reading, never holds the producer. Microtask
   * turns, not a timer, so the order of the run's steps against other tasks does not depend on timing.
   * @returns `undefined` when the reader is waiting for more.
   */
  caughtUp(): Promise<void> | undefined {
    return this.#idle ? undefined : this.#spin();
  }

  /**
   * Resolves once the reader has handled every item pushed so far, however long it takes, or when
   * `signal` aborts (a reader that went away ends the run). For a step that must see what the reader
   * made of the events (the name it gave a message), not merely give it a chance to keep pace.
   * @returns `undefined` when the reader is waiting for more.
   */
  read(signal: AbortSignal): Promise<void> | undefined {
    if (this.#idle || signal.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      this.#readers.push(done);
    });
  }

  async #spin(): Promise<void> {
    for (let turn = 0; !this.#idle && turn < 16 + 8 * this.#items.length; turn++) await undefined;
  }
}
