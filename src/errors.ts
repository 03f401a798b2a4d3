/**
 * Errors of the package: one base class, a literal `code` per subclass, typed
 * fields and a `cause`. Codes used by the AG-UI adapter map 1:1 to `RUN_ERROR` codes.
 *
 * Three families: caller mistakes ({@link UserError}), runtime failures
 * (models, hooks, tools) and protocol errors (resume payloads, wire formats).
 *
 * @module
 */

import { KabooError } from "./kaboo-error.js";

export { KabooError, UserError } from "./kaboo-error.js";

/**
 * The request does not say who it is for, in words meant for the client. Throw it from an edge
 * handler's `principal` lookup (`createAguiHandler`) to tell the caller what to send: its message is the
 * 401's `detail`. Any other error a lookup throws stays in the server's log.
 *
 * @example
 * ```ts
 * principal: (request) => {
 *   const user = request.headers.get("x-user");
 *   if (!user) throw new UnauthenticatedError("Send an x-user header with the user's id.");
 *   return user;
 * },
 * ```
 */
export class UnauthenticatedError extends KabooError {
  readonly code = "UNAUTHENTICATED" as const;
}

/** A hook callback threw; names the hook and the event. */
export class HookError extends KabooError {
  readonly code = "HOOK_FAILED" as const;
  /** The hook provider (class name) or callback name. */
  readonly hookName: string;
  /** The event's type, e.g. `BeforeToolCallEvent`. */
  readonly eventName: string;
  constructor(hookName: string, eventName: string, cause: unknown) {
    super(`Hook ${hookName} failed on ${eventName}: ${describe(cause)}`, { cause });
    this.hookName = hookName;
    this.eventName = eventName;
  }
}

/** A resume answered an interrupt id the agent is not waiting on. */
export class UnknownInterruptIdError extends KabooError {
  readonly code = "UNKNOWN_INTERRUPT_ID" as const;
  readonly interruptId: string;
  constructor(interruptId: string, pending: readonly string[]) {
    super(`No pending interrupt has id "${interruptId}". Pending: ${pending.length ? pending.join(", ") : "none"}.`);
    this.interruptId = interruptId;
  }
}

/** A resume left some pending interrupts unanswered. */
export class PartialResumeError extends KabooError {
  readonly code = "PARTIAL_RESUME" as const;
  readonly missing: readonly string[];
  constructor(missing: readonly string[]) {
    super(`The resume must answer every pending interrupt; missing: ${missing.join(", ")}.`);
    this.missing = missing;
  }
}

/** An interrupt answer that is not a usable value (`null`, `undefined`, or failing its schema). */
export class InvalidInterruptResponseError extends KabooError {
  readonly code = "INVALID_PAYLOAD" as const;
  readonly interruptId: string;
  constructor(interruptId: string, reason: string) {
    super(`Invalid answer for interrupt "${interruptId}": ${reason}.`);
    this.interruptId = interruptId;
  }
}

/** A resume approved an interrupt after its `expiresAt`; cancel it instead to continue. */
export class InterruptExpiredError extends KabooError {
  readonly code = "INTERRUPT_EXPIRED" as const;
  readonly interruptId: string;
  constructor(interruptId: string, expiresAt: string) {
    super(`Interrupt "${interruptId}" expired at ${expiresAt}; answer it with status "cancelled" to continue.`);
    this.interruptId = interruptId;
  }
}

/** New input arrived while the agent still waits on interrupts. */
export class PendingInterruptsError extends KabooError {
  readonly code = "PENDING_INTERRUPTS" as const;
  readonly pending: readonly string[];
  constructor(pending: readonly string[]) {
    super(
      pending.length
        ? `The agent is waiting on interrupts (${pending.join(", ")}); resume with their answers, or call discardInterrupts() first.`
        : "The agent's last resume failed before its paused tool calls finished; resume again with the same answers, or call discardInterrupts() first.",
    );
    this.pending = pending;
  }
}

/** A serialised interrupt state (or snapshot) is malformed or of an unknown version. */
export class InvalidStateError extends KabooError {
  readonly code = "INVALID_STATE" as const;
}

/**
 * A per-run value in `invocationState` is not what its key holds (a host put a number under
 * `threadId`, say). Thrown by the strict readers of the run context, never a bare `TypeError`.
 */
export class InvalidRunContextError extends KabooError {
  readonly code = "INVALID_RUN_CONTEXT" as const;
  /** The `invocationState` key (a symbol's description for internal keys). */
  readonly key: string;
  /** What the key must hold, e.g. `a string`. */
  readonly expected: string;
  constructor(key: string, expected: string, got: unknown) {
    super(`invocationState["${key}"] must be ${expected}, got ${typeName(got)}.`);
    this.key = key;
    this.expected = expected;
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "no prototype"})`;
  return typeof value;
}

/**
 * Why a model stream failed: `"idle"` (no bytes for the idle timeout), `"timeout"` (the overall
 * timeout), `"connection"` (the connection broke), `"protocol"` (a malformed, cut-off or
 * out-of-order stream).
 */
export type ModelStreamErrorReason = "idle" | "timeout" | "connection" | "protocol";

/** The model's stream failed: it broke the protocol (ended early, events out of order), broke off, or timed out. */
export class ModelStreamError extends KabooError {
  readonly code = "MODEL_STREAM_ERROR" as const;
  /** Why the stream failed; a hook may retry `"idle"` and `"connection"`. */
  readonly reason: ModelStreamErrorReason;
  /**
   * @param message - What failed.
   * @param options - `cause`, and `reason` (default `"protocol"`).
   */
  constructor(message: string, options: { cause?: unknown; reason?: ModelStreamErrorReason } = {}) {
    super(message, { cause: options.cause });
    this.reason = options.reason ?? "protocol";
  }
}

/** A hook asked for more model retries than the bound allows. */
export class MaxModelRetriesError extends KabooError {
  readonly code = "MAX_MODEL_RETRIES" as const;
  readonly attempts: number;
  constructor(attempts: number, cause: unknown) {
    super(`The model call failed after ${attempts} attempts: ${describe(cause)}`, { cause });
    this.attempts = attempts;
  }
}

/** A tool definition is invalid (duplicate name, bad schema). */
export class ToolDefinitionError extends KabooError {
  readonly code = "TOOL_DEFINITION" as const;
}

/** One call of a batch, as named in a {@link ToolBatchError}. */
export interface BatchCall {
  toolUseId: string;
  name: string;
}

/**
 * A tool batch failed part way (a hook threw, the ledger refused a call) after some of its calls
 * ran. Says which ran (their results are kept) and which did not; `cause` is the failure.
 * A batch that fails before any call ran throws the failure itself.
 */
export class ToolBatchError extends KabooError {
  readonly code = "TOOL_BATCH_FAILED" as const;
  /** Calls that finished: their results are in the transcript, or in the paused run's snapshot. */
  readonly ran: readonly BatchCall[];
  /** Calls that did not finish: a retry of the resume runs them; a fresh run records them as not run. */
  readonly notRun: readonly BatchCall[];
  constructor(cause: unknown, ran: readonly BatchCall[], notRun: readonly BatchCall[]) {
    const list = (calls: readonly BatchCall[]) =>
      calls.length ? calls.map((c) => `${c.name} (${c.toolUseId})`).join(", ") : "none";
    super(`The tool batch failed: ${describe(cause)}. Ran: ${list(ran)}. Did not run: ${list(notRun)}.`, { cause });
    this.ran = ran;
    this.notRun = notRun;
  }
}

/**
 * The execution ledger holds a live claim on a call: another invocation (a second tab, a retried
 * request) is running it right now. The call is not run a second time; try again once it settles.
 */
export class CallInProgressError extends KabooError {
  readonly code = "CALL_IN_PROGRESS" as const;
  readonly toolUseId: string;
  readonly tool: string;
  /** When the other holder's lease ends (epoch ms); after it, the call's outcome is asked of a person. */
  readonly leaseExpiresAt: number;
  constructor(tool: string, toolUseId: string, leaseExpiresAt: number) {
    super(
      `The call to "${tool}" (${toolUseId}) is in progress elsewhere; it was not run again. Try again after it finishes (lease ends ${new Date(leaseExpiresAt).toISOString()}).`,
    );
    this.toolUseId = toolUseId;
    this.tool = tool;
    this.leaseExpiresAt = leaseExpiresAt;
  }
}

/**
 * A tool call ran past its deadline (the tool's `timeoutMs`, else the agent's `toolTimeoutMs`): the
 * call's `signal` aborts with this error as its reason. A tool that honours its signal ends with it, and
 * the model reads it as the call's error result.
 */
export class ToolTimeoutError extends KabooError {
  readonly code = "TOOL_TIMEOUT" as const;
  readonly tool: string;
  readonly toolUseId: string;
  /** The deadline that passed, in ms. */
  readonly timeoutMs: number;
  constructor(tool: string, toolUseId: string, timeoutMs: number) {
    super(`The call to "${tool}" (${toolUseId}) timed out after ${timeoutMs} ms.`);
    this.tool = tool;
    this.toolUseId = toolUseId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Several callbacks of an event whose callbacks all run (`AfterInvocationEvent`: cleanup, session
 * save, publisher close) threw; shaped like `AggregateError`, with each {@link HookError} in `errors`.
 */
export class HookErrors extends KabooError {
  readonly code = "HOOKS_FAILED" as const;
  readonly errors: readonly HookError[];
  constructor(errors: readonly HookError[]) {
    super(`${errors.length} hooks failed: ${errors.map((e) => e.message).join("; ")}`, { cause: errors[0] });
    this.errors = errors;
  }
}

/**
 * Short text for an unknown thrown value.
 * @param error - Anything thrown.
 * @param maxChars - Longest text returned; longer text is cut and marked with `…`. Default: no bound.
 * @returns The error's message (or its JSON, or `String(error)`).
 */
export function describe(error: unknown, maxChars = Number.POSITIVE_INFINITY): string {
  let text: string;
  if (error instanceof Error) text = error.message;
  else {
    try {
      text = typeof error === "string" ? error : String(JSON.stringify(error));
    } catch {
      text = String(error);
    }
  }
  // A hostile server's error can be megabytes; what is shown to a model or a log must not be.
  return text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 1))}…` : text;
}
