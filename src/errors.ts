/**
 * Errors of the package: one base class, a literal `code` per subclass, typed
 * fields and a `cause`. Codes used by the AG-UI adapter map 1:1 to `RUN_ERROR` codes.
 *
 * Three families: caller mistakes ({@link UserError}), runtime failures
 * (models, hooks, tools) and protocol errors (resume payloads, wire formats).
 *
 * @module
 */

/** Base of every error this package throws. `name` is the subclass name. */
export abstract class KabooError extends Error {
  /** A stable, machine-readable code. */
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The caller used the API wrongly (bad option, wrong call order). */
export class UserError extends KabooError {
  readonly code = "USER_ERROR" as const;
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
