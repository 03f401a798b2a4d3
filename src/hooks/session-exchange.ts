/**
 * The per-run session exchange and the `invocationState` keys an adapter
 * (the AG-UI one, or any host) fills for the hooks of this package.
 *
 * Everything here lives in one run's `invocationState`: a Workers isolate or a
 * page serves several runs at once, so nothing is kept in module variables.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { defaultLogger, type Logger } from "./logger.js";
import type { Agent } from "../agent/agent.js";
import type { InvocationState } from "../agent/events.js";
import { jsonValueSchema } from "../agent/interrupt.js";
import type { JsonValue } from "../agent/messages.js";

/** `invocationState` key of the run's {@link SessionExchange}. */
export const SESSION_EXCHANGE_KEY = "kabooSessionExchange";
/** `invocationState` key of the conversation (AG-UI `threadId`), a string. */
export const THREAD_ID_KEY = "threadId";
/**
 * `invocationState` key of the person the run serves, a string the host vouches for (the edge
 * handler's `principal`). Remembered grants apply only to the person they were given by.
 */
export const PRINCIPAL_KEY = "kabooPrincipal";
/** `invocationState` key of the run (AG-UI `runId`), a string. */
export const RUN_ID_KEY = "runId";
/** `invocationState` key of the dot path an orchestrator gives the node it runs (`research.web#2`). */
export const STREAM_PATH_KEY = "kabooStreamPath";
/**
 * `invocationState` key of the run's AG-UI context items: an array of
 * `{ description: string, value: string }` (AG-UI `RunAgentInput.context`).
 * See {@link ContextHook} for how an item names the browser tool it belongs to.
 */
export const CONTEXT_ITEMS_KEY = "aguiContext";
/**
 * `invocationState` key of the run's shared state: the JSON object the client
 * and the agent both see (AG-UI `RunAgentInput.state`). State effects replace
 * it as tools succeed; readers take it afresh at every step and never modify it.
 */
export const SHARED_STATE_KEY = "sharedState";

/**
 * What a client sends back (and receives) to carry a paused session across a
 * reload. Wire names as in the Python package. `interrupt_state` is checked
 * fully (version, shape) only when it is restored.
 */
export interface SessionSnapshotIn {
  interrupt_state?: unknown;
  delegates?: Record<string, JsonValue>;
}

const inboundSchema = z.looseObject({
  interrupt_state: z.optional(z.unknown()),
  delegates: z.optional(z.record(z.string(), jsonValueSchema)),
});

/**
 * One run's exchange between the host and the session-state functions:
 * what the client sent, whether this run resumes, and the agent whose state
 * the outgoing snapshot serialises.
 */
export class SessionExchange {
  /** The snapshot the client sent (validated; `{}` when absent or malformed). */
  readonly inbound: SessionSnapshotIn;
  /** Whether this run answers interrupts (AG-UI `resume`), set by the host. */
  resuming: boolean;
  /** Whether the inbound state was already restored (or refused) in this run. */
  restored = false;
  /** The agent that reached invocation last; its state is what the snapshot sends. */
  agent: Agent | undefined = undefined;
  /** Whether this run publishes its open requests to the host (set once an agent is recorded). */
  publishesApprovals = false;
  /** Snapshots of delegate agents, by name, sent back under `delegates`. */
  delegates: Record<string, JsonValue>;

  /**
   * @param inbound - The client's snapshot, as received (untrusted).
   * @param resuming - Whether the run resumes a paused one.
   * @param logger - Where a malformed snapshot is reported. Default `console`.
   */
  constructor(inbound: unknown, resuming: boolean, logger: Logger = defaultLogger) {
    this.inbound = parseInbound(inbound, logger);
    this.resuming = resuming;
    this.delegates = { ...(this.inbound.delegates ?? {}) };
  }
}

function parseInbound(inbound: unknown, logger: Logger): SessionSnapshotIn {
  if (inbound === undefined || inbound === null) return {};
  const parsed = inboundSchema.safeParse(inbound);
  if (parsed.success) {
    const out: SessionSnapshotIn = {};
    if (parsed.data.interrupt_state !== undefined) out.interrupt_state = parsed.data.interrupt_state;
    if (parsed.data.delegates !== undefined) out.delegates = parsed.data.delegates;
    return out;
  }
  // A corrupt snapshot must not cost the person their conversation: start clean.
  logger.warn(`kaboo: ignoring a malformed session snapshot; starting clean. ${z.prettifyError(parsed.error)}`);
  return {};
}

/** Options of {@link createSessionExchange}. */
export interface CreateSessionExchangeOptions {
  /** The client's snapshot (untrusted; validated). Default: none. */
  inbound?: unknown;
  /** Whether this run resumes a paused one. Default `false`. */
  resuming?: boolean;
  /** Default `console`. */
  logger?: Logger;
}

/**
 * Creates the run's exchange and stores it in `invocationState` under
 * {@link SESSION_EXCHANGE_KEY}. The host calls it once per run, before invoking.
 *
 * @param invocationState - The run's state.
 * @param options - `inbound` (default none), `resuming` (default false), `logger` (default console).
 * @returns The exchange.
 * @example
 * ```ts
 * const invocationState = {};
 * createSessionExchange(invocationState, { inbound: input.state?.session, resuming: !!input.resume?.length });
 * restoreSessionState(agent, invocationState); // before invoke: a cold agent needs the state to resume
 * const result = await agent.invoke(answers, { invocationState });
 * const snapshot = sessionStateSnapshot(invocationState);
 * ```
 */
export function createSessionExchange(
  invocationState: InvocationState,
  options: CreateSessionExchangeOptions = {},
): SessionExchange {
  const exchange = new SessionExchange(options.inbound, options.resuming ?? false, options.logger);
  invocationState[SESSION_EXCHANGE_KEY] = exchange;
  return exchange;
}

/**
 * The run's exchange, if the host created one.
 * @param invocationState - The run's state.
 * @returns The {@link SessionExchange}, or `undefined` (also when the key holds something else).
 */
export function getSessionExchange(invocationState: InvocationState): SessionExchange | undefined {
  const value = invocationState[SESSION_EXCHANGE_KEY];
  return value instanceof SessionExchange ? value : undefined;
}
