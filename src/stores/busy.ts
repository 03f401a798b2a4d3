/**
 * Waiting out a busy database: local Deno KV is SQLite, and a second process (or isolate) writing
 * the same file finds it locked for a moment ("database is locked"); a Durable Object can answer
 * that it is overloaded. Each step is retried with a growing, jittered pause until a time bound,
 * then the request ends with {@link StoreBusyError}, which says that trying again is right.
 *
 * @module
 */
import { KabooError } from "../errors.js";

/** Default of `busyTimeoutMs`: how long a store waits out a busy database before it gives up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** The storage stayed busy (locked, contended, overloaded) past the store's bound. Nothing was written; try again. */
export class StoreBusyError extends KabooError {
  readonly code = "STORE_BUSY" as const;
  /** Always `true`: the same request may simply be sent again. */
  readonly retryable = true as const;
}

/** How {@link whileBusy} waits. */
export interface BusyPolicy {
  /** Total time spent waiting, ms. Default {@link DEFAULT_BUSY_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /** Default `setTimeout`. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** Default `Date.now`. */
  now?: (() => number) | undefined;
}

const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 250;
const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether an error is SQLite's "the file is locked by someone else" (Deno KV on a local file).
 * @param error - Anything thrown by a Deno KV call.
 */
export function isLocked(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /database is (locked|busy)|SQLITE_BUSY/i.test(text);
}

/**
 * Runs `step`, retrying it while `busy(error)` says the storage is busy, with bounded backoff.
 * @param step - One storage operation that writes nothing when it fails busy.
 * @param busy - Tells a busy error from a real failure (a real failure is thrown at once).
 * @param what - Named in the error, e.g. `"claim"`.
 * @param policy - `timeoutMs` (default 5000), `sleep`, `now`.
 * @returns What `step` returned.
 * @throws {StoreBusyError} When the storage is still busy at the bound.
 */
export async function whileBusy<T>(
  step: () => Promise<T>,
  busy: (error: unknown) => boolean,
  what: string,
  policy: BusyPolicy = {},
): Promise<T> {
  const now = policy.now ?? Date.now;
  const sleep = policy.sleep ?? sleepFor;
  const deadline = now() + (policy.timeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await step();
    } catch (error) {
      if (!busy(error)) throw error;
      const left = deadline - now();
      if (left <= 0)
        throw new StoreBusyError(`The thread store stayed busy (${what}); nothing was written. Try again.`, {
          cause: error,
        });
      // Jitter: two processes that collided must not retry in lockstep.
      await sleep(Math.min(left, wait / 2 + Math.random() * (wait / 2)));
    }
  }
}
