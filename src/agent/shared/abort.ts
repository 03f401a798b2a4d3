/**
 * A child abort controller that follows an outer signal: the agent makes one per run, so it loads with
 * the page (waiting on a signal, which only the runner, the orchestrators and hooks' slow work do, is in
 * `abort-wait.ts`).
 *
 * @module
 */

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
  // A child already aborted follows nothing: a listener on `outer` would stay until someone unlinks.
  else if (outer && !controller.signal.aborted) {
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
