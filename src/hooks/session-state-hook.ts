/**
 * Reload-safe sessions: seed an agent with the interrupt state the client sent
 * back, and serialise it for the outgoing snapshot.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { BeforeInvocationEvent, type InvocationState } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { InterruptState, type InterruptStateJson } from "../agent/interrupts/interrupt.js";
import { describe } from "../errors.js";
import { getSessionExchange } from "../agent/interrupts/session-exchange.js";
import { staleCallId, type SessionSnapshot } from "../agent/interrupts/session.js";
import { defaultLogger, type Logger } from "../logger.js";

export type { SessionSnapshot } from "../agent/interrupts/session.js";

/**
 * Seeds `agent` with the interrupt state the client sent, if this run resumes.
 *
 * Only a resume restores: a fresh run's message supersedes any gate the state
 * still holds. A run restores at most once, so the host can call it before
 * `agent.invoke(answers)` — which it must for a cold agent, since the agent
 * checks the answers against its state before any hook runs — and
 * {@link SessionStateHook} can call it again on every invocation harmlessly.
 * Only a clean agent is seeded: a warm agent's own state is at least as fresh
 * as the client's (the client got it from the agent).
 *
 * Beyond the Python rules, a state whose paused calls already appear in the
 * agent's transcript is refused: the runner appends a paused batch only once
 * it completes, so such a snapshot is older than the transcript, and restoring
 * it would bring back a gate that was answered (and run its tool twice).
 * A malformed state is logged and the agent starts clean.
 *
 * @param agent - The agent about to run.
 * @param invocationState - The run's state, holding the {@link SessionExchange}.
 * @param logger - Default `console`.
 * @returns Whether a state was restored.
 * @example
 * ```ts
 * createSessionExchange(invocationState, { inbound: snapshot, resuming: true });
 * restoreSessionState(agent, invocationState);
 * await agent.invoke(answers, { invocationState });
 * ```
 */
export function restoreSessionState(
  agent: Agent,
  invocationState: InvocationState,
  logger: Logger = defaultLogger,
): boolean {
  const exchange = getSessionExchange(invocationState);
  if (exchange === undefined) return false;
  exchange.agent = agent;
  exchange.publishesApprovals = true;
  if (!exchange.resuming || exchange.restored) return false;
  const state = exchange.inboundInterruptState;
  if (!exchange.sentInterruptState) return false;
  exchange.restored = true;
  const current = agent.interruptState;
  if (current.activated || current.interrupts.size > 0) return false;
  let restored: InterruptState;
  try {
    restored = InterruptState.fromJSON(state);
  } catch (error) {
    logger.warn(`kaboo: paused session restore failed; starting with clean state. ${describe(error)}`);
    return false;
  }
  const stale = staleCallId(restored, agent.messages);
  if (stale !== undefined) {
    logger.warn(`kaboo: ignoring a session snapshot older than the transcript (call ${stale} already finished).`);
    return false;
  }
  agent.interruptState = restored;
  logger.debug?.(
    `kaboo: paused session restored | activated=${restored.activated} interrupts=${[...restored.interrupts.keys()].join(",")}`,
  );
  return true;
}

/**
 * Serialises the run's agent state for the outgoing snapshot.
 *
 * Returns `null` when there is nothing worth sending: no exchange, no agent
 * reached invocation, or the agent holds no interrupt — unless the client sent
 * state, in which case the clean state is sent so that a resolved gate is
 * cleared on the client rather than replayed on its next turn.
 *
 * @param invocationState - The run's state, holding the {@link SessionExchange}.
 * @param logger - Default `console`.
 * @returns `{ interrupt_state, delegates? }` (a JSON copy), or `null`.
 */
export function sessionStateSnapshot(
  invocationState: InvocationState,
  logger: Logger = defaultLogger,
): SessionSnapshot | null {
  const exchange = getSessionExchange(invocationState);
  if (exchange?.agent === undefined) return null;
  let serialized: InterruptStateJson;
  try {
    // A JSON copy: the host stores it while the agent's state moves on.
    serialized = JSON.parse(JSON.stringify(exchange.agent.interruptState)) as InterruptStateJson;
  } catch (error) {
    logger.warn(`kaboo: paused session capture failed; state left unchanged. ${describe(error)}`);
    return null;
  }
  if (!serialized.activated && Object.keys(serialized.interrupts).length === 0) {
    if (!exchange.sentInterruptState) return null;
  }
  return exchange.snapshot(serialized);
}

/**
 * Restores client-supplied interrupt state onto the executing agent, and
 * records that agent on the run's {@link SessionExchange} so the host can
 * serialise its state ({@link sessionStateSnapshot}) once the run pauses or ends.
 *
 * It calls {@link restoreSessionState} on `BeforeInvocationEvent`. That is too
 * late for a cold agent resuming (the agent validates the answers against its
 * state before that event), so the host also calls `restoreSessionState` before
 * `agent.invoke`; the second call is a no-op apart from recording the agent.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools, hooks: [new InterruptHook(["pay"]), new SessionStateHook()] });
 * ```
 */
export class SessionStateHook implements HookProvider {
  readonly #logger: Logger;

  /** @param options - `logger`: default `console`. */
  constructor(options: { logger?: Logger } = {}) {
    this.#logger = options.logger ?? defaultLogger;
  }

  /** Subscribes to `BeforeInvocationEvent`. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (event) => {
      restoreSessionState(event.agent, event.invocationState, this.#logger);
    });
  }
}
