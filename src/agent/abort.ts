/**
 * Abort helpers shared by the runner and the orchestrators.
 *
 * @module
 */

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
    const onAbort = () => {
      promise.then(undefined, () => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
