/**
 * A tiny push/pull queue: producers push events, one async iterator pulls them.
 * Lets concurrent tool calls stream their events out of `agent.stream()` as they happen.
 *
 * @module
 */
export class EventQueue<T> {
  #items: T[] = [];
  #waiting: (() => void) | undefined;

  push(item: T): void {
    this.#items.push(item);
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
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }
}
