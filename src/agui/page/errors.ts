/**
 * Why the in-page agent refuses a run before it starts. Each code is the `RUN_ERROR` code the
 * front end receives.
 *
 * @module
 */
import { KabooError } from "../../errors.js";

/**
 * The thread's run is not this call's to drive: another tab drives it now (watch it with
 * `connectAgent()`), or it is unfinished from a page that went away (`connectAgent()` continues it).
 */
export class RunInProgressError extends KabooError {
  readonly code = "RUN_IN_PROGRESS" as const;
}

/** The run answers questions the thread no longer has open (decided by the run core). */
export { StaleThreadError } from "../core/decide.js";
