/**
 * How long the runner waits for a tool call: each call has a deadline, past which its `signal` aborts
 * with a {@link ToolTimeoutError}; a callback that has not settled a grace after its signal aborted (its
 * deadline, or a Stop at the edge) is let go with a {@link ToolAbandonedError}. Both waits are decided
 * here, for the runner and for the edge's Stop alike.
 *
 * @module
 */
import { KabooError, ToolTimeoutError } from "../../errors.js";
import { onAbort } from "../shared/abort-wait.js";

/** Longest delay a timer takes (a longer one fires at once): a longer deadline is no deadline. */
const MAX_TIMER_MS = 2_147_483_647;

/** One call's deadline: the signal its tool gets, and the wait for its callback. */
export interface CallDeadline {
  /**
   * The tool's signal: aborts with the run's, or with a {@link ToolTimeoutError} at the deadline. Made
   * when first read: most tools never read it, and a signal of its own costs a call several microseconds.
   */
  readonly signal: AbortSignal;
  /**
   * Waits for the callback (the deadline runs from here): its value, the run's abort reason as soon as the
   * run aborts, or a {@link ToolAbandonedError} once it has not settled `graceMs` after the deadline.
   */
  wait<T>(run: Promise<T>): Promise<T>;
}

/**
 * One call's deadline.
 * @param o - The run's signal, the tool's name, the call's id, `timeoutMs` and `graceMs`.
 * @returns The call's signal and its wait.
 */
export function callDeadline(o: {
  runSignal: AbortSignal;
  tool: string;
  toolUseId: string;
  timeoutMs: number;
  graceMs: number;
}): CallDeadline {
  const { runSignal } = o;
  let controller: AbortController | undefined;
  let timedOut: ToolTimeoutError | undefined;
  let unlink = (): unknown => undefined;
  return {
    get signal() {
      if (!controller) {
        const own = new AbortController();
        controller = own;
        if (runSignal.aborted || timedOut) own.abort(timedOut ?? runSignal.reason);
        // Through the run signal's one shared listener: a batch of many calls adds one listener, not one each.
        else unlink = onAbort(runSignal, (reason) => own.abort(reason));
      }
      return controller.signal;
    },
    wait<T>(run: Promise<T>): Promise<T> {
      run.then(undefined, () => undefined);
      return new Promise<T>((resolve, reject) => {
        let grace: ReturnType<typeof setTimeout> | undefined;
        const finish = () => {
          clearTimeout(deadline);
          clearTimeout(grace);
          stopWaiting();
          unlink();
        };
        const stopWaiting = runSignal.aborted
          ? () => false
          : onAbort(runSignal, (reason) => {
              finish();
              reject(reason);
            });
        if (runSignal.aborted) return reject(runSignal.reason);
        const deadline =
          o.timeoutMs <= MAX_TIMER_MS
            ? setTimeout(() => {
                timedOut = new ToolTimeoutError(o.tool, o.toolUseId, o.timeoutMs);
                controller?.abort(timedOut);
                grace = setTimeout(() => {
                  finish();
                  reject(new ToolAbandonedError(o.tool, o.toolUseId, "timeout", run));
                }, o.graceMs);
              }, o.timeoutMs)
            : undefined;
        run.then(
          (value) => {
            finish();
            resolve(value);
          },
          (error: unknown) => {
            finish();
            reject(error);
          },
        );
      });
    },
  };
}

/**
 * Settles with `run`, or rejects: with the run's abort reason as soon as `runSignal` aborts (the run is
 * over: nothing waits for the call), or with `abandoned(run)` once `run` has not settled `graceMs` after
 * `callSignal` aborted (its callback ignores its signal). A late failure of `run` is never unhandled.
 * @param run - The callback's promise.
 * @param callSignal - The call's own signal (its deadline, a Stop).
 * @param o - The run's signal, the grace, and the error of an abandoned call.
 */
export function graceAfterAbort<T>(
  run: Promise<T>,
  callSignal: AbortSignal,
  o: { runSignal?: AbortSignal | undefined; graceMs: number; abandoned: (late: Promise<T>) => Error },
): Promise<T> {
  run.then(undefined, () => undefined);
  return new Promise<T>((resolve, reject) => {
    let grace: ReturnType<typeof setTimeout> | undefined;
    let stopWaiting = (): unknown => undefined;
    const finish = () => {
      clearTimeout(grace);
      stopWaiting();
      callSignal.removeEventListener("abort", onCallAbort);
    };
    const onRunAbort = () => {
      finish();
      reject(o.runSignal?.reason);
    };
    const onCallAbort = () => {
      // The run's own abort is the run's to answer (it ends at once); only the call's own starts a grace.
      if (o.runSignal?.aborted) return;
      grace = setTimeout(() => {
        finish();
        reject(o.abandoned(run));
      }, o.graceMs);
    };
    if (o.runSignal?.aborted) return onRunAbort();
    if (o.runSignal) stopWaiting = onAbort(o.runSignal, onRunAbort);
    if (callSignal.aborted) onCallAbort();
    else callSignal.addEventListener("abort", onCallAbort, { once: true });
    run.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}

/**
 * A tool call whose callback had not settled a grace (`toolGraceMs`) after its signal aborted (its
 * deadline, or a Stop at the edge): the run stopped waiting for it. It may still be running, so its
 * outcome is unknown: its ledger claim is kept as such (the next claim asks a person), and a result that
 * still comes is recorded in the ledger and the audit trail, never handed to the run that let it go.
 */
export class ToolAbandonedError extends KabooError {
  readonly code = "TOOL_ABANDONED" as const;
  readonly tool: string;
  readonly toolUseId: string;
  /** Why its signal aborted: its deadline passed, or its run was stopped. */
  readonly why: "timeout" | "stopped";
  /** The callback's own promise, still pending when the call was let go. */
  readonly late: Promise<unknown>;
  constructor(tool: string, toolUseId: string, why: "timeout" | "stopped", late: Promise<unknown>) {
    super(`The call to "${tool}" (${toolUseId}) was abandoned (${why}); it may have run.`);
    this.tool = tool;
    this.toolUseId = toolUseId;
    this.why = why;
    this.late = late;
  }
}
