/**
 * A run's hold on its thread in a {@link ThreadStore}: a lease the live run renews for as long as
 * it runs (a run outlives its request), so that only a run that died with its isolate blocks the
 * thread, and only for one lease. Renewals are compare-and-set writes like every other; the hold
 * keeps the version, so the run's final write names the right one.
 *
 * @module
 */
import { describe } from "../../../errors.js";
import type { Logger } from "../../../logger.js";
import type { ThreadData, ThreadRecord, ThreadStore } from "../../../stores/thread-store.js";

/** Default time a run's hold lasts without renewal: 30 s (a dead run blocks its thread no longer). */
export const DEFAULT_RUN_LEASE_MS = 30 * 1000;

/** Options of {@link ThreadHold}. */
export interface ThreadHoldOptions {
  store: ThreadStore;
  threadId: string;
  /** The record as written when the run took the thread (its lease is this run's). */
  record: ThreadRecord;
  leaseMs: number;
  now: () => number;
  log: Logger;
  /** Called when a Stop for this run was written to its lease (from another isolate). */
  onCancel: () => void;
}

/** The lease of one live run, renewed every third of `leaseMs` until the run writes its end. */
export class ThreadHold {
  readonly #o: ThreadHoldOptions;
  #record: ThreadRecord;
  #timer: ReturnType<typeof setInterval> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #lost = false;

  /** @param o - See {@link ThreadHoldOptions}. */
  constructor(o: ThreadHoldOptions) {
    this.#o = o;
    this.#record = o.record;
    this.#timer = setInterval(
      () => {
        this.#chain = this.#chain.then(() => this.#renew());
      },
      Math.max(1, Math.floor(o.leaseMs / 3)),
    );
  }

  /** The record as this run last wrote it. */
  get record(): ThreadRecord {
    return this.#record;
  }

  /**
   * Ends the hold with a last write (the run's outcome, or a release).
   *
   * @param data - The thread's data to write (its `lease` should be `null`).
   * @returns Whether it was written (false: the hold was lost to another run).
   */
  async end(data: ThreadData): Promise<boolean> {
    this.#stop();
    await this.#chain;
    const { store, threadId } = this.#o;
    const token = this.#record.lease?.token;
    for (let attempt = 0; attempt < 3 && !this.#lost; attempt++) {
      if (await store.compareAndSet(threadId, this.#record.version, data)) return true;
      // Only a Stop from another isolate writes to a held lease; anything else means the hold was lost.
      const current = await store.load(threadId);
      if (current.lease?.token !== token) return false;
      this.#record = current;
    }
    return false;
  }

  /** Stops renewing without writing (the caller releases in its own way). */
  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #renew(): Promise<void> {
    const { store, threadId, leaseMs, now, log } = this.#o;
    const lease = this.#record.lease;
    if (this.#lost || this.#timer === undefined || lease === null) return;
    try {
      const next: ThreadData = { ...this.#record, lease: { ...lease, expiresAt: now() + leaseMs } };
      if (await store.compareAndSet(threadId, this.#record.version, next)) {
        this.#record = { ...next, version: this.#record.version + 1 };
        return;
      }
      const current = await store.load(threadId);
      if (current.lease?.token !== lease.token) {
        // Taken over after the hold ran out: the final write will fail, nothing of this run is saved.
        this.#lost = true;
        this.#stop();
        return;
      }
      // Someone wrote to this run's lease: a Stop from another isolate. Renew on the next tick.
      this.#record = current;
      if (current.lease.cancel === true) this.#o.onCancel();
    } catch (error) {
      // The store is unreachable for now: the lease may run out; the final write tells.
      log.warn("kaboo: could not renew a run's hold on its thread", { threadId, error: describe(error) });
    }
  }
}
