/**
 * The run context: every per-run fact a host (the AG-UI adapter, an orchestrator, a delegate)
 * hands the hooks through `invocationState`, each under one key defined here with a typed reader
 * and writer. Nothing else spells these keys.
 *
 * Everything lives in one run's `invocationState`: a Workers isolate or a page serves several runs
 * at once, so nothing is kept in module variables. Keys that are wire names (a host may set them
 * by hand) are strings; bookkeeping that must never reach JSON is under symbols.
 *
 * Two readers per key: `get` is strict and throws {@link InvalidRunContextError} when the key holds
 * something else; `find` is lenient and reads such a value as absent, for hooks that skip what a
 * host got wrong rather than fail the run. The paused batch is not in `invocationState` but in
 * the agent's interrupt state; its owner is `./paused-batch.ts`. The paused session's shape is
 * `./session.ts`'s; the run's exchange of it is made and found in `./interrupts/session-exchange.ts`.
 * A layer above keeps its own bookkeeping in {@link privateRunKey} slots (the approval hooks'
 * decisions live in `hooks/approval/run.ts`).
 *
 * @module
 */
import { InvalidRunContextError } from "../errors.js";
import type { InvocationState } from "./events.js";
import type { AuditLog } from "./audit/audit.js";
import { callText, keyOfCall, type ExecutionLedger } from "./ledger/ledger.js";
import { SessionExchange } from "./interrupts/session.js";
import type { PausedBatch } from "./interrupts/paused-batch.js";
import type { Agent } from "./agent.js";
import { isObject } from "./shared/guards.js";

/** `invocationState` key of the conversation (AG-UI `threadId`), a string. */
export const THREAD_ID_KEY = "threadId";
/**
 * `invocationState` key of the person the run serves, a string the host vouches for (the edge
 * handler's `principal`). Remembered grants apply only to the person they were given by.
 */
export const PRINCIPAL_KEY = "kabooPrincipal";
/** Key of {@link runContext.requester}. */
export const REQUESTER_KEY = "kabooRequester";
/** `invocationState` key of the run (AG-UI `runId`), a string. */
export const RUN_ID_KEY = "runId";
/** `invocationState` key of the run's {@link SessionExchange}. */
export const SESSION_EXCHANGE_KEY = "kabooSessionExchange";
/** `invocationState` key of the dot path an orchestrator gives the node it runs (`research.web#2`). */
export const STREAM_PATH_KEY = "kabooStreamPath";
/**
 * `invocationState` key of the tool-call id a coordinator used to delegate to this agent (a
 * string). A grouped agent's `STREAM_GROUP_START` carries it as `tool_call_id`, so a UI can tie
 * the coordinator's inline tool row to the delegate's activity card.
 */
export const DELEGATION_ID_KEY = "delegationId";
/** The `invocationState` key the host (e.g. the AG-UI adapter) puts a run's forwarded props under. */
export const FORWARDED_PROPS_KEY = "forwardedProps";
/** Key of the remembered grants inside `forwardedProps`. */
export const GRANTS_PROP = "kaboo_grants";
/**
 * `invocationState` key of the run's AG-UI context items: an array of
 * `{ description: string, value: string }` (AG-UI `RunAgentInput.context`).
 * See `ContextHook` for how an item names the browser tool it belongs to.
 */
export const CONTEXT_ITEMS_KEY = "aguiContext";
/**
 * `invocationState` key of the run's shared state: the JSON object the client
 * and the agent both see (AG-UI `RunAgentInput.state`). State effects replace
 * it as tools succeed; readers take it afresh at every step and never modify it.
 */
export const SHARED_STATE_KEY = "sharedState";
/** `invocationState` key of the run's execution ledger (the record of which calls ran). */
export const EXECUTION_LEDGER_KEY = "kabooExecutionLedger";
/** `invocationState` key of the run's audit trail (an `AuditLog`: what was asked, decided and run). */
export const AUDIT_LOG_KEY = "kabooAuditLog";
/**
 * `invocationState` key of the resume entries' `metadata` (AG-UI), by interrupt id: envelope data
 * such as a signature over the person's answer, which the audit trail records with the decision.
 */
export const RESUME_METADATA_KEY = "kabooResumeMetadata";

/** One per-run fact: its key, a strict and a lenient reader, and a writer. */
export interface RunKey<T> {
  /** The `invocationState` key. */
  readonly key: string | symbol;
  /**
   * @returns The value, or `undefined` when the key is absent.
   * @throws InvalidRunContextError when the key holds something else.
   */
  get(state: InvocationState): T | undefined;
  /** @returns The value, or `undefined` when the key is absent or holds something else. */
  find(state: InvocationState): T | undefined;
  /** @returns Whatever the key holds, unchecked (for a reader that validates it with its own schema). */
  raw(state: InvocationState): unknown;
  /** Stores `value` under the key. */
  set(state: InvocationState, value: T): void;
  /** Removes the key (a child run that must not see the parent's value). */
  delete(state: InvocationState): void;
  /** @returns A shallow copy of `state` (a child run's) with `value` under the key. */
  with(state: InvocationState, value: T): InvocationState;
}

function runKey<T>(key: string | symbol, expected: string, is: (value: unknown) => value is T): RunKey<T> {
  // Symbol keys are internal bookkeeping: `InvocationState` is typed by its string keys only.
  const bag = (state: InvocationState) => state as Record<string | symbol, unknown>;
  return {
    key,
    get(state) {
      const value = bag(state)[key];
      if (value === undefined || is(value)) return value;
      throw new InvalidRunContextError(typeof key === "string" ? key : (key.description ?? "?"), expected, value);
    },
    find(state) {
      const value = bag(state)[key];
      return is(value) ? value : undefined;
    },
    raw(state) {
      return bag(state)[key];
    },
    set(state, value) {
      bag(state)[key] = value;
    },
    delete(state) {
      delete bag(state)[key];
    },
    with(state, value) {
      const child = { ...state };
      bag(child)[key] = value;
      return child;
    },
  };
}

/**
 * A per-run slot private to one module (the swarm's pending handoffs, say): under a fresh symbol,
 * so it never collides with another key, never reaches JSON, and child runs (shallow copies of the
 * state) share it.
 * @param name - For messages (`kaboo.<name>`).
 * @param is - What the slot holds.
 * @returns The slot's reader and writer.
 */
export function privateRunKey<T>(name: string, is: (value: unknown) => value is T): RunKey<T> {
  return runKey(Symbol(`kaboo.${name}`), `a ${name}`, is);
}

const isString = (v: unknown): v is string => typeof v === "string";
const isFunction = (v: unknown): v is BatchCheckpoint => typeof v === "function";

/**
 * Saves a batch before its calls run (the page's checkpoint): awaited by the loop, so a reload
 * after any call was claimed finds the batch, with the same call ids, and continues it instead of
 * asking the model again (which would make new calls of the same request).
 */
export type BatchCheckpoint = (batch: PausedBatch, agent: Agent) => Promise<void>;
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const isLedger = (v: unknown): v is ExecutionLedger =>
  isObject(v) && typeof v.claim === "function" && typeof v.settle === "function" && typeof v.release === "function";
const isAuditLog = (v: unknown): v is AuditLog =>
  isObject(v) && typeof v.append === "function" && typeof v.entries === "function";

/** The run's keys. */
export const runContext = {
  /** The conversation (AG-UI `threadId`). */
  threadId: runKey<string>(THREAD_ID_KEY, "a string", isString),
  /** The person the run serves, as the host vouches (the edge handler's `principal`). */
  principal: runKey<string>(PRINCIPAL_KEY, "a string", isString),
  /**
   * The person whose conversation the run goes on with, when that is not {@link runContext.principal}
   * (a four-eyes approver's run on someone else's thread): a request the run asks names them as its
   * requester. Default: the principal.
   */
  requester: runKey<string>(REQUESTER_KEY, "a string", isString),
  /** The run (AG-UI `runId`). */
  runId: runKey<string>(RUN_ID_KEY, "a string", isString),
  /** The run's session exchange (the paused session the client sent and gets back). */
  sessionExchange: runKey<SessionExchange>(
    SESSION_EXCHANGE_KEY,
    "a SessionExchange",
    (v) => v instanceof SessionExchange,
  ),
  /** The dot path of the node an orchestrator runs. */
  streamPath: runKey<string>(STREAM_PATH_KEY, "a string", isString),
  /** The tool-call id a coordinator delegated to this agent under. */
  delegationId: runKey<string>(DELEGATION_ID_KEY, "a string", isString),
  /** The run's forwarded props (AG-UI `forwardedProps`), a JSON object; grants come in under {@link GRANTS_PROP}. */
  forwardedProps: runKey<Record<string, unknown>>(FORWARDED_PROPS_KEY, "a JSON object", isObject),
  /** The run's AG-UI context items (untrusted; `ContextHook` validates each). */
  contextItems: runKey<unknown[]>(CONTEXT_ITEMS_KEY, "an array", isArray),
  /** The run's shared state (AG-UI `state`). */
  sharedState: runKey<Record<string, unknown>>(SHARED_STATE_KEY, "a JSON object", isObject),
  /** The run's execution ledger. */
  executionLedger: runKey<ExecutionLedger>(EXECUTION_LEDGER_KEY, "an ExecutionLedger", isLedger),
  /** The run's audit trail (the host's; else the agent's own, if it has one). */
  auditLog: runKey<AuditLog>(AUDIT_LOG_KEY, "an AuditLog", isAuditLog),
  /** The resume entries' `metadata`, by interrupt id (untrusted JSON objects). */
  resumeMetadata: runKey<Record<string, unknown>>(RESUME_METADATA_KEY, "a JSON object", isObject),
  /**
   * Called with each tool batch before its calls run (see {@link BatchCheckpoint}), with the agent
   * that runs it: child runs share the key, so a host checks that the agent is its own.
   */
  batchCheckpoint: privateRunKey<BatchCheckpoint>("batchCheckpoint", isFunction),
} as const;

/**
 * The grants the host sent with this run (`forwardedProps.kaboo_grants`).
 * @param state - The run's state.
 * @returns `{ sent: false }` when the host sent none (then nothing may be remembered), else the raw,
 *   untrusted value.
 */
export function grantsIn(state: InvocationState): { sent: false } | { sent: true; value: unknown } {
  const props = runContext.forwardedProps.find(state);
  return props && Object.hasOwn(props, GRANTS_PROP) ? { sent: true, value: props[GRANTS_PROP] } : { sent: false };
}

/**
 * Forwarded props for a run: a copy of `props` (`{}` when it is not an object) with `grants`
 * under {@link GRANTS_PROP}, or left as they are when `grants` is `undefined`.
 * @param props - The client's forwarded props (untrusted).
 * @param grants - The grants the run may trust. Default: keep what the client sent.
 * @param options - `inPlace`: write into `props` itself instead of a copy, for a caller that owns
 *   it (the edge handler's own parse of the body: a copy of a wide object is a cost a client could
 *   buy). Default `false`.
 * @returns A fresh object (or `props` itself with `inPlace`).
 */
export function forwardedPropsWithGrants(
  props: unknown,
  grants?: readonly unknown[],
  options: { inPlace?: boolean | undefined } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = isObject(props) ? (options.inPlace ? props : { ...props }) : {};
  if (grants !== undefined) out[GRANTS_PROP] = grants;
  return out;
}

/**
 * The execution key of a call of this run: its thread (`""` without one), call id and arguments. Every
 * place that claims a call asks for its key here, so they agree on it.
 * @param invocationState - The run's state.
 * @param toolUseId - The call's id.
 * @param input - The arguments the key is taken over (the call's as the model made it).
 * @returns The key (see `executionKey`).
 */
export function callKey(invocationState: InvocationState, toolUseId: string, input: unknown): string {
  return keyOfCall(callId(invocationState, toolUseId, input));
}

/**
 * What {@link callKey} hashes (see `callText`): how the runner names a call to the memory ledger.
 * @param invocationState - The run's state (its thread id).
 * @param toolUseId - The call's id.
 * @param input - The arguments the key covers.
 * @returns The call's text.
 */
export function callId(invocationState: InvocationState, toolUseId: string, input: unknown): string {
  return callText({ threadId: runContext.threadId.find(invocationState) ?? "", toolUseId, input });
}

/**
 * The ledger a run's calls go through: the run's own (an edge handler passes its thread store's),
 * else the agent's.
 * @param agent - The running agent.
 * @param invocationState - The run's state.
 * @returns The ledger.
 */
export function runLedger(agent: Agent, invocationState: InvocationState): ExecutionLedger {
  return runContext.executionLedger.get(invocationState) ?? agent.ledger;
}
