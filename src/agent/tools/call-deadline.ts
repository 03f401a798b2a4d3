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
      const wait = graceWait(run, o.graceMs, (late) => new ToolAbandonedError(o.tool, o.toolUseId, "timeout", late));
      // The run's abort ends the wait at once: the run is over, nothing waits for the call.
      const stopWaiting = runSignal.aborted ? wait.fail(runSignal.reason) : onAbort(runSignal, wait.fail);
      const deadline =
        o.timeoutMs <= MAX_TIMER_MS
          ? setTimeout(() => {
              timedOut = new ToolTimeoutError(o.tool, o.toolUseId, o.timeoutMs);
              controller?.abort(timedOut);
              wait.startGrace();
            }, o.timeoutMs)
          : undefined;
      const finish = () => {
        clearTimeout(deadline);
        if (typeof stopWaiting === "function") stopWaiting();
        unlink();
      };
      wait.promise.then(finish, finish);
      return wait.promise;
    },
  };
}

/** A wait for a callback that can be given up on: see {@link graceWait}. */
export interface GraceWait<T> {
  /** Settles with the callback, or rejects as {@link GraceWait.fail} or the grace decide. */
  readonly promise: Promise<T>;
  /** The callback was told to stop: unless it settles within the grace, the wait rejects with the abandoned error. */
  startGrace(): void;
  /** Rejects the wait now (the run is over). */
  fail(reason: unknown): void;
}

/**
 * Waits for a tool's callback, for as long as it takes until {@link GraceWait.startGrace}, then for the
 * grace only: one rule for a call past its deadline and for a call stopped at the edge. A late failure
 * of `run` is never unhandled.
 * @param run - The callback's promise.
 * @param graceMs - How long it has once told to stop.
 * @param abandoned - The error of a call let go (it gets `run`, still pending).
 * @returns The wait.
 */
export function graceWait<T>(run: Promise<T>, graceMs: number, abandoned: (late: Promise<T>) => Error): GraceWait<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  let settled = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const end = (settle: () => void) => {
    if (settled) return;
    settled = true;
    clearTimeout(grace);
    settle();
  };
  run.then(
    (value) => end(() => resolve(value)),
    (error: unknown) => end(() => reject(error)),
  );
  return {
    promise,
    startGrace() {
      if (settled || grace !== undefined) return;
      grace = setTimeout(() => end(() => reject(abandoned(run))), graceMs);
    },
    fail: (reason) => end(() => reject(reason)),
  };
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
