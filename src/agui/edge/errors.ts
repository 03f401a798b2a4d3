/**
 * Why the edge handler refuses a run before it starts. Each code is the `RUN_ERROR` code the
 * client receives.
 *
 * @module
 */
import { KabooError } from "../../errors.js";

/** The client's `kaboo_session` is unsealed, altered, or sealed for another thread. */
export class InvalidSessionError extends KabooError {
  readonly code = "INVALID_SESSION" as const;
}

/** Another run is answering this thread's interrupts now; this one runs nothing. */
export class ResumeInProgressError extends KabooError {
  readonly code = "RESUME_IN_PROGRESS" as const;
}

/** Another run holds this thread now. */
export class ThreadBusyError extends KabooError {
  readonly code = "THREAD_BUSY" as const;
}

/** The thread belongs to another principal. */
export class ThreadForbiddenError extends KabooError {
  readonly code = "THREAD_FORBIDDEN" as const;
}

/** The request's run id names a run this thread already had (decided by the run core). */
export { RunIdReusedError } from "../core/decide.js";

/** The thread changed under the run (its hold ran out and another run took it): nothing was saved. */
export class ThreadConflictError extends KabooError {
  readonly code = "THREAD_CONFLICT" as const;
}

// The history rule and its error are shared with the page (its session store holds the transcript too).
export { HistoryConflictError } from "../core/history.js";

/**
 * A run's event log ends before its last event (a write to it was lost): a client reattaching from
 * the log cannot get the rest. What the run did is in the thread's record (MESSAGES_SNAPSHOT of the next run).
 */
export class EventLogIncompleteError extends KabooError {
  readonly code = "EVENT_LOG_INCOMPLETE" as const;
}
