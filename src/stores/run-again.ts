/**
 * What the hosts that run a dead run again share (the Durable Object's alarm, the PostgreSQL
 * sweeper): the error a run ends with when it was refused on its run again, and how that refusal is
 * read from the handler's response.
 *
 * @module
 */
import { describe, KabooError } from "../errors.js";

/**
 * A run that died with its host (its Durable Object, its Node process) and was refused when it was
 * run again (by the object's alarm, by a sweeper), before it took the thread (the agent could not
 * be made, its request no longer holds). The host gives up: the thread is freed, the kept request
 * dropped, and this is the last event of the run's log.
 */
export class RunNotResumedError extends KabooError {
  readonly code = "RUN_NOT_RESUMED" as const;
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
