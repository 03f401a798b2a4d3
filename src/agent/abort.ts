/**
 * Abort helpers shared by the runner and the orchestrators.
 *
 * @module
 */

/** Everyone waiting on a signal's abort, behind one listener per signal (see {@link onAbort}). */
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

/**
 * Calls `fn` with the signal's reason when it aborts; returns the function that stops waiting.
 * All waits on one signal share one listener: a batch of many concurrent calls would otherwise put a
 * listener each on the batch's signal (Node warns past ten: MaxListenersExceededWarning), and a run's model
 * streams one each on the run's signal.
 * @param signal - The signal to wait on (not yet aborted).
 * @param fn - Called once with the signal's reason when it aborts.
 * @returns Stops waiting.
 */
export function onAbort(signal: AbortSignal, fn: (reason: unknown) => void): () => void {
  let set = waiters.get(signal);
  if (!set) {
    const mine = new Set<(reason: unknown) => void>();
    set = mine;
    waiters.set(signal, mine);
    signal.addEventListener(
      "abort",
      () => {
        for (const waiter of mine) waiter(signal.reason);
        mine.clear();
      },
      { once: true },
    );
  }
  set.add(fn);
  const own = set;
  return () => own.delete(fn);
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts
 * (the promise is left to finish on its own; its late failure is swallowed).
 * @param promise - The work to wait for.
 * @param signal - Stops the wait.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The work's own failure would otherwise surface as an unhandled rejection.
    promise.then(undefined, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, (reason) => {
      promise.then(undefined, () => undefined);
      reject(reason);
    });
    promise.then(
      (v) => {
        stop();
        resolve(v);
      },
      (e: unknown) => {
        stop();
        reject(e);
      },
    );
  });
}

/** A child abort controller that follows an outer signal (see {@link linkedAbort}). */
export interface LinkedAbort {
  /** The child's signal: aborted when the child is, or when the outer signal is (with its reason). */
  readonly signal: AbortSignal;
  /** Aborts the child only (the outer signal is not touched). */
  abort(reason?: unknown): void;
  /** Stops following the outer signal (call it when the child's work is over). */
  unlink(): void;
}

/**
 * A child controller that follows `outer`: it aborts with the outer signal's reason as soon as that
 * aborts (at once when it already has), and can also be aborted on its own (a timeout, a failed
 * sibling) without touching the outer signal. The link lets go by itself once the child aborts.
 * @param outer - The signal to follow. Default: none (a plain controller).
 * @param child - The controller to link (one a caller hands out itself). Default: a new one.
 * @returns The child's signal, `abort` and `unlink`.
 * @example
 * ```ts
 * const run = linkedAbort(options.signal);
 * try {
 *   await work(run.signal);
 * } finally {
 *   run.unlink();
 * }
 * ```
 */
export function linkedAbort(outer?: AbortSignal, child: AbortController = new AbortController()): LinkedAbort {
  const controller = child;
  const follow = () => controller.abort(outer?.reason);
  const unlink = () => outer?.removeEventListener("abort", follow);
  if (outer?.aborted) follow();
  else if (outer) {
    // Not `{ signal: controller.signal }`: Node keeps such a listener through a WeakRef, and a WeakRef's
    // target (with all it reaches: the run's signal, its listeners) lives until the current job ends,
    // which for a run that never waits on I/O is the whole run.
    outer.addEventListener("abort", follow, { once: true });
    controller.signal.addEventListener("abort", unlink, { once: true });
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    unlink,
  };
}
