/**
 * A serverless host's `waitUntil` (see `AguiExecutionContext`), given the run so that a function frozen
 * after its response is not frozen mid-run.
 *
 * @module
 */
import type { Logger } from "../../../logger.js";
import { describe } from "../../../errors.js";
import type { AguiExecutionContext } from "../options.js";

/**
 * Hands `run` to the `waitUntil` in `context`, when there is one.
 * @param context - What the host passed beside the request: anything (Deno.serve's info, a Node server's
 *   bindings); only a `waitUntil` function counts.
 * @param run - The run's promise (its rejection is not the host's to report).
 * @param log - Where a `waitUntil` that throws is reported (the run goes on).
 */
export function keepAlive(context: unknown, run: Promise<unknown>, log: Logger): void {
  const waitUntil =
    typeof context === "object" && context !== null ? (context as AguiExecutionContext).waitUntil : undefined;
  if (typeof waitUntil !== "function") return;
  try {
    waitUntil.call(
      context,
      run.catch(() => undefined),
    );
  } catch (error) {
    log.warn("kaboo: the host's waitUntil refused the run; it goes on while the process lives", {
      error: describe(error),
    });
  }
}
