/**
 * StopGuard, MultiAgentStopGuard and stopGuardFromSignal: end a run from outside.
 *
 * @module
 */
import { describe, UserError } from "../errors.js";
import { BeforeNodeCallEvent, BeforeToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { defaultLogger, type Logger } from "../logger.js";
import { linkedAbort } from "../agent/shared/abort.js";

/** Returns `true` when the run should stop. May be async; throwing counts as "stop". */
export type StopCheck = () => boolean | Promise<boolean>;

/** Options shared by the stop guards. */
export interface StopGuardOptions {
  /** Where a throwing `stopCheck` is reported. Default {@link defaultLogger} (console). */
  logger?: Logger;
}

function checkCallable(owner: string, stopCheck: unknown): asserts stopCheck is StopCheck {
  if (typeof stopCheck !== "function") {
    throw new UserError(
      `${owner}: stopCheck must be a function returning a boolean, got ${stopCheck === null ? "null" : typeof stopCheck}.`,
    );
  }
}

// Fail closed: a check that cannot answer is treated as a stop request, because
// the usual reason for a stop (client gone, budget spent) is also a common
// reason for the check itself to break. A check that answers synchronously is
// answered synchronously (no promise per tool call).
function shouldStop(
  owner: string,
  stopCheck: StopCheck,
  logger: Logger,
  where: () => Record<string, unknown>,
): boolean | Promise<boolean> {
  const broke = (error: unknown) => {
    logger.warn(`${owner}: stopCheck threw; treating it as a stop request.`, { ...where(), error: describe(error) });
    return true;
  };
  let answer: boolean | Promise<boolean>;
  try {
    answer = stopCheck();
  } catch (error) {
    return broke(error);
  }
  if (answer && typeof (answer as PromiseLike<boolean>).then === "function")
    return Promise.resolve(answer).then(Boolean, broke);
  return Boolean(answer);
}

/** Runs `then` with the answer: at once when it is a boolean, after it when it is a promise. */
function onAnswer(answer: boolean | Promise<boolean>, then: (stop: boolean) => void): void | Promise<void> {
  if (typeof answer === "boolean") return then(answer);
  return answer.then(then);
}

/**
 * Cancels the agent's loop when an external stop condition is met.
 *
 * Checked before every tool call. When `stopCheck()` returns `true` (or throws),
 * the tool is not run, the model's transcript gets an error result for it, and
 * the loop ends after the current batch with `stopReason: "stopped"`;
 * `AfterInvocationEvent` fires as usual. A model turn that calls no tool is not
 * interrupted — pass an `AbortSignal` to `invoke` for that (see {@link stopGuardFromSignal}).
 *
 * @example
 * ```ts
 * let cancelled = false;
 * const agent = new Agent({ model, tools, hooks: [new StopGuard(() => cancelled)] });
 * ```
 */
export class StopGuard implements HookProvider {
  readonly #stopCheck: StopCheck;
  readonly #logger: Logger;

  /**
   * @param stopCheck - Returns `true` when the agent should stop (sync or async).
   * @param options - `{ logger = defaultLogger }`.
   * @throws UserError when `stopCheck` is not a function.
   */
  constructor(stopCheck: StopCheck, options: StopGuardOptions = {}) {
    checkCallable("StopGuard", stopCheck);
    this.#stopCheck = stopCheck;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** Registers the BeforeToolCall check. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeToolCallEvent, (event) => {
      const where = () => ({ agent: event.agent.name, toolUseId: event.toolUse.toolUseId, tool: event.toolUse.name });
      return onAnswer(shouldStop("StopGuard", this.#stopCheck, this.#logger, where), (stop) => {
        if (!stop) return;
        event.cancel = `The run was stopped on request; the tool "${event.toolUse.name}" was not run.`;
        event.stopLoop = true;
      });
    });
  }
}

/**
 * Cancels the next node of a multi-agent orchestration (Graph, Swarm) when an
 * external stop condition is met: sets `cancelNode` on `BeforeNodeCallEvent`.
 *
 * @example
 * ```ts
 * graph.hooks.addHook(new MultiAgentStopGuard(() => signal.aborted));
 * ```
 */
export class MultiAgentStopGuard implements HookProvider {
  readonly #stopCheck: StopCheck;
  readonly #logger: Logger;

  /**
   * @param stopCheck - Returns `true` when the orchestration should stop (sync or async).
   * @param options - `{ logger = defaultLogger }`.
   * @throws UserError when `stopCheck` is not a function.
   */
  constructor(stopCheck: StopCheck, options: StopGuardOptions = {}) {
    checkCallable("MultiAgentStopGuard", stopCheck);
    this.#stopCheck = stopCheck;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** Registers the BeforeNodeCall check. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeNodeCallEvent, (event) => {
      const where = () => ({ orchestrator: event.agent.name, nodeId: event.nodeId });
      return onAnswer(shouldStop("MultiAgentStopGuard", this.#stopCheck, this.#logger, where), (stop) => {
        if (stop) event.cancelNode = `The run was stopped on request; node "${event.nodeId}" was not run.`;
      });
    });
  }
}

/**
 * Creates a {@link StopGuard} driven by an `AbortController` — the Web
 * counterpart of Python's `stop_guard_from_event`.
 *
 * Always returns a fresh `controller`; call `controller.abort()` to stop at the
 * next tool-call boundary. When `signal` is given (e.g. `request.signal` of a
 * streaming response, so a closed client stops the agent), the controller is
 * linked to it: the given signal aborting aborts the controller (with the same
 * reason), while aborting the controller never touches the given signal. Pass
 * `controller.signal` to `agent.invoke` as well to also cut a streaming model turn.
 *
 * @param signal - Optional signal to follow. Default: none (only the controller stops the guard).
 * @param options - `{ logger = defaultLogger }`, handed to the guard.
 * @returns `{ guard, controller }`.
 * @example
 * ```ts
 * const { guard, controller } = stopGuardFromSignal(request.signal);
 * agent.hooks.addHook(guard);
 * await agent.invoke(prompt, { signal: controller.signal });
 * ```
 */
export function stopGuardFromSignal(
  signal?: AbortSignal,
  options: StopGuardOptions = {},
): { guard: StopGuard; controller: AbortController } {
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new UserError(
      `stopGuardFromSignal: signal must be an AbortSignal, got ${signal === null ? "null" : typeof signal}.`,
    );
  }
  const controller = new AbortController();
  linkedAbort(signal, controller);
  const guard = new StopGuard(function signalAborted() {
    return controller.signal.aborted;
  }, options);
  return { guard, controller };
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof AbortSignal !== "undefined" && value instanceof AbortSignal;
}
