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

/**
 * The drive locks of a page. Without a lock manager (a page outside a secure context, Node) the page keeps its own
 * lock per thread: one drive at a time in this page (a run whose view left, and a `connectAgent()` after it, never
 * both drive), with no guarantee across tabs.
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

  /** Without a lock manager: the threads this page drives, and who waits for each (see the class). */
  readonly #local = new Map<string, (() => void)[]>();

  #takeLocal(threadId: string, options: LockOptions): Promise<DriveLock | undefined> {
    const waiting = this.#local.get(threadId);
    const grant = (): DriveLock => {
      this.#local.set(threadId, this.#local.get(threadId) ?? []);
      let done = false;
      return {
        release: () => {
          if (done) return Promise.resolve();
          done = true;
          const next = this.#local.get(threadId)?.shift();
          if (next) next();
          else this.#local.delete(threadId);
          return Promise.resolve();
        },
      };
    };
    if (!waiting) {
      this.#local.set(threadId, []);
      return Promise.resolve(grant());
    }
    if (options.ifAvailable) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const go = () => {
        options.signal?.removeEventListener("abort", off);
        resolve(grant());
      };
      const off = () => {
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        reject(options.signal?.reason);
      };
      options.signal?.addEventListener("abort", off, { once: true });
      waiting.push(go);
    });
  }

  #take(threadId: string, options: LockOptions): Promise<DriveLock | undefined> {
    const locks = this.#locks;
    if (!locks) return this.#takeLocal(threadId, options);
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
  /** Set on the driver's answer to a join: the watcher it is for (the others leave it). */
  to?: string;
}

/**
 * The thread's run channel: to the other tabs (a `BroadcastChannel`, where one exists) and to this tab's own
 * listeners on it (a `BroadcastChannel` does not hear itself), so a view in the tab that drives a run can follow it.
 */
export class RunChannel {
  readonly #channel: BroadcastChannel | undefined;
  /**
   * This tab's listeners, to events (watchers) and to joins (the driver): each gets a copy of what is posted here, a
   * task later, as the other tabs do.
   */
  readonly #local = { event: new Set<(data: unknown) => void>(), join: new Set<(data: unknown) => void>() };
  /** Echoes not yet delivered, in the order posted. */
  readonly #echoes: { local: Set<(data: unknown) => void>; listeners: ((data: unknown) => void)[]; copy: unknown }[] =
    [];

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
      this.#echo(this.#local.event, message);
    } catch {
      // An event that cannot be cloned reaches the watchers in the next snapshot instead.
    }
  }

  /**
   * Listens to the driver; returns the function that stops listening.
   * @param listener - Gets each event, and the answers to this watcher's own join.
   * @param self - This watcher's join id: answers to other watchers' joins are left out.
   */
  listen(listener: (message: RunChannelMessage) => void, self?: string): () => void {
    return this.#on(this.#local.event, (data) => {
      const m = data as Partial<RunChannelMessage> | null;
      // Another tab's message is input: only an event with a type is relayed.
      if (typeof m?.runId !== "string" || typeof m.event?.type !== "string") return;
      if (m.to === undefined || m.to === self) listener(m as RunChannelMessage);
    });
  }

  /** Asks the driver for what it streams now (a watcher that joins mid-message): it answers to `id`. */
  join(id: string): void {
    try {
      this.#channel?.postMessage({ join: id });
      this.#echo(this.#local.join, { join: id });
    } catch {
      // Without an answer the watcher shows the message at the run's closing snapshot.
    }
  }

  /** The driver hears joins; returns the function that stops listening. */
  onJoin(listener: (id: string) => void): () => void {
    return this.#on(this.#local.join, (data) => {
      const id = (data as { join?: unknown } | null)?.join;
      if (typeof id === "string") listener(id);
    });
  }

  #on(local: Set<(data: unknown) => void>, listener: (data: unknown) => void): () => void {
    const channel = this.#channel;
    const onMessage = (e: MessageEvent) => listener(e.data);
    channel?.addEventListener("message", onMessage);
    local.add(listener);
    return () => {
      channel?.removeEventListener("message", onMessage);
      local.delete(listener);
    };
  }

  /**
   * Hands this tab's `local` listeners a copy of `data` (none listening: nothing is copied), a task later and in the
   * order posted. One timer per message would not keep that order: a timer set from deeply nested timers (a model
   * streaming on timers) is clamped to 4 ms, so a live event could reach a watcher after the driver's answer to its
   * join that already holds it, and the watcher would show it twice.
   */
  #echo(local: Set<(data: unknown) => void>, data: unknown): void {
    if (local.size === 0) return;
    this.#echoes.push({ local, listeners: [...local], copy: structuredClone(data) });
    if (this.#echoes.length === 1) setTimeout(() => this.#deliver(), 0);
  }

  /** Delivers the queued echoes, oldest first (one a listener posts while it runs joins the end of the queue). */
  #deliver(): void {
    for (let next = this.#echoes[0]; next; next = this.#echoes[0]) {
      for (const listener of next.listeners) {
        try {
          if (next.local.has(listener)) listener(next.copy);
        } catch (error) {
          // As a timer's callback would: reported, and the other listeners and messages still delivered.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      this.#echoes.shift();
    }
  }

  close(): void {
    this.#channel?.close();
  }
}
