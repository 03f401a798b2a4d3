/**
 * Interrupts: how a hook or tool pauses a run for a person's answer, and the
 * versioned, validated state that carries a paused run across a reload.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../tools/issues.js";
import { recordOf, sizedString } from "../shared/lean-schemas.js";
import {
  InvalidInterruptResponseError,
  InvalidStateError,
  PartialResumeError,
  UnknownInterruptIdError,
} from "../../errors.js";
import { canonicalJson } from "../shared/canonical-json.js";
import { assertDepth } from "../shared/json-depth.js";
import type { JsonObject, JsonValue } from "../messages/messages.js";

/**
 * Version of the serialised {@link InterruptState}.
 *
 * - 1: `{ version, activated, interrupts: { [id]: { id, name, reason?, response? } }, context }`.
 */
export const INTERRUPT_STATE_VERSION = 1;

/** A request for an answer from outside the run (usually a person). */
export interface Interrupt {
  /** Deterministic: `hook:beforeToolCall:<toolUseId>:<name>`, `tool:<toolUseId>:<name>`, `hook:beforeNodeCall:<nodeId>:<name>`. */
  id: string;
  /** What is asked, e.g. `kaboo_approval`. */
  name: string;
  /** Details for whoever answers (JSON). */
  reason?: JsonValue;
  /** The answer, once there is one. */
  response?: JsonValue;
}

/** What `event.interrupt()` / `context.interrupt()` take. */
export interface InterruptRequest {
  name: string;
  reason?: JsonValue;
  /** A pre-emptive answer: returned at once, nothing pauses. */
  response?: JsonValue;
}

/** An answer to one interrupt, as passed to `agent.invoke([...])` to resume. */
export interface InterruptResponse {
  interruptResponse: { interruptId: string; response: JsonValue };
}

/**
 * Thrown inside a hook or tool to unwind it when an interrupt has no answer yet.
 * The runner catches it; user code should let it pass (do not swallow it in a `catch`).
 */
export class InterruptSignal extends Error {
  readonly interrupt: Interrupt;
  constructor(interrupt: Interrupt) {
    super(`Interrupt "${interrupt.id}" is waiting for an answer.`);
    this.name = "InterruptSignal";
    this.interrupt = interrupt;
  }
}

const jsonValue: z.ZodMiniType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), recordOf(jsonValue)]),
);

const interruptSchema = z.object({
  id: sizedString(1),
  name: sizedString(1),
  reason: z.optional(jsonValue),
  response: z.optional(jsonValue),
});

const stateSchema = z.object({
  version: z.literal(INTERRUPT_STATE_VERSION),
  activated: z.boolean(),
  interrupts: recordOf(interruptSchema),
  context: recordOf(jsonValue),
});

/** The JSON form of an {@link InterruptState}. */
export type InterruptStateJson = z.infer<typeof stateSchema>;

/** Schema of a resume answer list. */
export const interruptResponsesSchema: z.ZodMiniType<InterruptResponse[]> = z.array(
  z.object({
    interruptResponse: z.object({ interruptId: sizedString(1), response: jsonValue }),
  }),
);

/**
 * The interrupts of a paused run and the context needed to resume it.
 *
 * `activated` is true from the moment a run pauses until the resumed batch
 * completes. `context` holds the runner's resume data (the pending tool-use
 * message and the results already produced), JSON only.
 */
export class InterruptState {
  activated = false;
  interrupts: Map<string, Interrupt> = new Map();
  context: JsonObject = {};

  /** Ids of interrupts that still have no answer. */
  pendingIds(): string[] {
    const out: string[] = [];
    for (const i of this.interrupts.values()) if (i.response === undefined) out.push(i.id);
    return out;
  }

  /** Interrupts that still have no answer. */
  pending(): Interrupt[] {
    return [...this.interrupts.values()].filter((i) => i.response === undefined);
  }

  /**
   * Returns the answer for `id` if there is one; otherwise records the
   * interrupt and throws {@link InterruptSignal}.
   */
  raise(id: string, request: InterruptRequest): JsonValue {
    const existing = this.interrupts.get(id);
    if (existing?.response !== undefined) return existing.response;
    if (request.response !== undefined) return request.response;
    const interrupt: Interrupt = { id, name: request.name };
    if (request.reason !== undefined) interrupt.reason = request.reason;
    this.interrupts.set(id, interrupt);
    throw new InterruptSignal(interrupt);
  }

  /**
   * Applies resume answers: every pending interrupt must be answered, with a
   * non-null value, no unknown id may appear, and an interrupt answered before
   * takes only the same answer again.
   * @throws UnknownInterruptIdError, PartialResumeError, InvalidInterruptResponseError
   */
  resume(responses: readonly InterruptResponse[]): void {
    const pending = this.pendingIds();
    const answers = new Map<string, JsonValue>();
    for (const { interruptResponse: r } of responses) {
      const known = this.interrupts.get(r.interruptId);
      if (!known) throw new UnknownInterruptIdError(r.interruptId, pending);
      // An answered interrupt takes only its own answer again (a failed resume retried): another
      // would change what an earlier question decided, say an edit sent under a later question.
      if (known.response !== undefined && canonicalJson(known.response) !== canonicalJson(r.response ?? null))
        throw new UnknownInterruptIdError(r.interruptId, pending);
      if (r.response === undefined || r.response === null) {
        throw new InvalidInterruptResponseError(r.interruptId, "the answer is null or undefined");
      }
      answers.set(r.interruptId, r.response);
    }
    const missing = pending.filter((id) => !answers.has(id));
    if (missing.length) throw new PartialResumeError(missing);
    for (const [id, response] of answers) {
      const interrupt = this.interrupts.get(id);
      if (interrupt) interrupt.response = response;
    }
  }

  /** Forgets everything: no interrupts, not activated. */
  clear(): void {
    this.activated = false;
    // Cleared once per tool batch: an empty map is left as it is (clearing one allocates its table anew).
    if (this.interrupts.size) this.interrupts.clear();
    this.context = {};
  }

  /** Versioned JSON (wire names as in the Python package: `activated`, `interrupts`, `context`). */
  toJSON(): InterruptStateJson {
    return {
      version: INTERRUPT_STATE_VERSION,
      activated: this.activated,
      interrupts: Object.fromEntries(this.interrupts),
      context: this.context,
    };
  }

  /**
   * Parses and validates a serialised state.
   * @param data - What {@link InterruptState.toJSON} produced, possibly from an untrusted client.
   * @throws InvalidStateError when it is malformed, nested deeper than `MAX_SNAPSHOT_DEPTH`, or of another version.
   */
  static fromJSON(data: unknown): InterruptState {
    assertDepth(data, "interrupt state");
    const parsed = stateSchema.safeParse(data);
    if (!parsed.success) {
      const version = (data as { version?: unknown } | null)?.version;
      const detail =
        version !== undefined && version !== INTERRUPT_STATE_VERSION
          ? `unsupported version ${JSON.stringify(version)} (this build reads ${INTERRUPT_STATE_VERSION})`
          : formatIssues(parsed.error.issues);
      throw new InvalidStateError(`Malformed interrupt state: ${detail}`);
    }
    const state = new InterruptState();
    state.activated = parsed.data.activated;
    for (const [key, value] of Object.entries(parsed.data.interrupts)) {
      if (key !== value.id)
        throw new InvalidStateError(`Malformed interrupt state: key "${key}" holds interrupt "${value.id}".`);
      const interrupt: Interrupt = { id: value.id, name: value.name };
      if (value.reason !== undefined) interrupt.reason = value.reason;
      if (value.response !== undefined) interrupt.response = value.response;
      state.interrupts.set(key, interrupt);
    }
    state.context = parsed.data.context as JsonObject;
    return state;
  }
}

/** Schema for any JSON value (shared by validators across the package). */
export const jsonValueSchema: z.ZodMiniType<JsonValue> = jsonValue;
