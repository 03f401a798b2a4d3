/**
 * One tab drives a thread's run, the others watch it: a Web Lock per thread says who drives, and a
 * BroadcastChannel per thread carries the driver's AG-UI events to the watchers.
 *
 * @module
 */
import type { BaseEvent } from "@ag-ui/core";

/** The lock a driving tab holds for a thread's run; the browser drops it when the tab dies. */
export interface DriveLock {
  /** Lets go (idempotent); resolves once the lock is free for the next taker. */
  release(): Promise<void>;
}

const NO_LOCK: DriveLock = { release: () => Promise.resolve() };

/**
 * The drive locks of a page. Without a lock manager every tab may drive (no guarantee across tabs).
 */
export class RunLocks {
  readonly #locks: LockManager | undefined;
  readonly #prefix: string;

  /**
   * @param locks - The Web Locks manager, or `undefined` for none.
   * @param prefix - Lock names are `<prefix><threadId>`. Default `"kaboo-run:"`.
   */
  constructor(locks: LockManager | undefined, prefix = "kaboo-run:") {
    this.#locks = locks;
    this.#prefix = prefix;
  }

  /** Whether a lock manager arbitrates (so a held lock means a live driver). */
  get enabled(): boolean {
    return this.#locks !== undefined;
  }

  /** @returns The thread's lock when it is free now, else `undefined` (another tab drives). */
  tryTake(threadId: string): Promise<DriveLock | undefined> {
    return this.#take(threadId, { ifAvailable: true });
  }

  /**
   * Waits for the thread's lock (its driver ended or died).
   * @throws The signal's reason when it aborts first.
   */
  async take(threadId: string, signal: AbortSignal): Promise<DriveLock> {
    const lock = await this.#take(threadId, { signal });
    if (!lock) throw signal.reason;
    return lock;
  }

  #take(threadId: string, options: LockOptions): Promise<DriveLock | undefined> {
    const locks = this.#locks;
    if (!locks) return Promise.resolve(NO_LOCK);
    return new Promise<DriveLock | undefined>((resolve, reject) => {
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      const gone: Promise<unknown> = locks
        .request(`${this.#prefix}${threadId}`, { ...options, mode: "exclusive" }, async (lock) => {
          if (!lock) return resolve(undefined);
          // A run that starts right after this one ends must find the lock free.
          resolve({
            release: () => (
              release(),
              gone.then(
                () => undefined,
                () => undefined,
              )
            ),
          });
          await held;
        })
        .catch(reject);
    });
  }
}

/** A message on a thread's run channel. */
export interface RunChannelMessage {
  runId: string;
  event: BaseEvent;
}

/** The thread's run channel; a no-op where `BroadcastChannel` does not exist. */
export class RunChannel {
  readonly #channel: BroadcastChannel | undefined;

  /**
   * @param threadId - The thread.
   * @param prefix - Channel names are `<prefix><threadId>`. Default `"kaboo-run:"`.
   */
  constructor(threadId: string, prefix = "kaboo-run:") {
    this.#channel = typeof BroadcastChannel === "undefined" ? undefined : new BroadcastChannel(`${prefix}${threadId}`);
    // Node (tests, servers) keeps a process alive while a channel is open; a page has no such notion.
    (this.#channel as { unref?: () => void } | undefined)?.unref?.();
  }

  /** Tells the other tabs about an event of the run this tab drives. */
  post(message: RunChannelMessage): void {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // An event that cannot be cloned reaches the watchers in the next snapshot instead.
    }
  }

  /** Listens to the driver; returns the function that stops listening. */
  listen(listener: (message: RunChannelMessage) => void): () => void {
    const channel = this.#channel;
    if (!channel) return () => undefined;
    const onMessage = (e: MessageEvent) => {
      const data = e.data as Partial<RunChannelMessage> | null;
      // Another tab's message is input: only an event with a type is relayed.
      if (typeof data?.runId === "string" && typeof data.event?.type === "string") listener(data as RunChannelMessage);
    };
    channel.addEventListener("message", onMessage);
    return () => channel.removeEventListener("message", onMessage);
  }

  close(): void {
    this.#channel?.close();
  }
}
