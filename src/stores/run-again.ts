/**
 * What the hosts that run a dead run again share (the Durable Object's alarm, the PostgreSQL
 * sweeper): the error a run ends with when it was refused on its run again, and how that refusal is
 * read from the handler's response.
 *
 * @module
 */
import { describe, KabooError } from "../errors.js";

/** The code of {@link RunNotResumedError}, and of the RUN_ERROR that ends a given-up run's log. */
export const RUN_NOT_RESUMED = "RUN_NOT_RESUMED" as const;

/**
 * A run that died with its host (its Durable Object, its Node process) and was refused when it was
 * run again (by the object's alarm, by a sweeper), before it took the thread (the agent could not
 * be made, its request no longer holds). The host gives up: the thread is freed, the kept request
 * dropped, and this is the last event of the run's log.
 */
export class RunNotResumedError extends KabooError {
  readonly code = RUN_NOT_RESUMED;
}

/** The key of a give-up's RUN_ERROR `metadata` naming its place among the run's attempts (see {@link runNotResumedEvent}). */
export const GIVE_UP_ATTEMPT_KEY = "kaboo_attempt";

/**
 * The RUN_ERROR a host appends to the log of a run it gives up. It counts as an attempt of its own,
 * after every attempt that held the thread (the lease counts those that died before their log named
 * them): its SSE id `<runId>:<n>.<attempt>` is told apart from any id a dead attempt sent (see
 * `agui/edge/run/attempts.ts`).
 *
 * @param error - Why the run was given up.
 * @param leaseAttempt - The attempt that last held the thread (its lease's `attempt`; absent: 0).
 * @param timestamp - Its timestamp.
 * @returns The event, as the log keeps it.
 */
export function runNotResumedEvent(
  error: RunNotResumedError,
  leaseAttempt: number | undefined,
  timestamp: number,
): { type: "RUN_ERROR"; message: string; code: string; timestamp: number; metadata: Record<string, number> } {
  const attempt = (leaseAttempt ?? 0) + 1;
  return {
    type: "RUN_ERROR",
    message: error.message,
    code: error.code,
    timestamp,
    metadata: { [GIVE_UP_ATTEMPT_KEY]: attempt },
  };
}

/**
 * Why a run's response refused it: its status and error for a JSON answer, the code of its last
 * RUN_ERROR for a stream. Reads the response to its end (the run's end or pause), keeping its tail.
 *
 * @param response - The handler's response to a run again.
 * @returns A short reason, for the log and the run's last event.
 */
export async function refusalOf(response: Response): Promise<string> {
  let tail = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>)
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-16_384);
  } catch (error) {
    return `its answer broke off: ${describe(error)}`;
  }
  if (!response.ok) return `${response.status} ${tail.slice(0, 300)}`;
  const last = tail
    .trimEnd()
    .split("\n")
    .reverse()
    .find((line) => line.startsWith("data: "));
  try {
    const event = JSON.parse(last?.slice(6) ?? "null") as { type?: unknown; code?: unknown; message?: unknown } | null;
    if (event?.type === "RUN_ERROR") return `${String(event.code)}: ${String(event.message).slice(0, 300)}`;
  } catch {
    // Not a whole event: said below.
  }
  return "its answer ended without a RUN_ERROR";
}
