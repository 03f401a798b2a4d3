/**
 * Waiting on an abort signal, for the runner, the orchestrators and hooks' slow work (one listener per
 * signal however many wait on it).
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
