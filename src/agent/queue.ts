/**
 * A tiny push/pull queue: producers push events, one async iterator pulls them.
 * Lets concurrent tool calls stream their events out of `agent.stream()` as they happen.
 *
 * @module
 */
export class EventQueue<T> {
  #items: T[] = [];
  #waiting: (() => void) | undefined;
  #idle: (() => void) | undefined;

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
      this.#idle?.();
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }

  /**
   * Resolves once the reader has taken and handled every item pushed so far (it asks for the next), or
   * at the next task at the latest, so a reader that stopped reading never holds the producer.
   * @returns `undefined` when nothing is waiting to be read.
   */
  caughtUp(): Promise<void> | undefined {
    if (this.#items.length === 0) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#idle = undefined;
        resolve();
      };
      const timer = setTimeout(done, 0);
      this.#idle = done;
    });
  }
}
