/**
 * The run's session exchange (the paused session the client sent and gets back): created once per
 * run by the host and found by the hooks, under `SESSION_EXCHANGE_KEY` (`runContext.sessionExchange`).
 *
 * @module
 */
import { defaultLogger, type Logger } from "../../logger.js";
import type { InvocationState } from "../events.js";
import { runContext } from "../run-context.js";
import { SessionExchange } from "./session.js";

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
 * `SESSION_EXCHANGE_KEY`. The host calls it once per run, before invoking.
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
  const exchange = new SessionExchange(options.inbound, options.resuming ?? false, options.logger ?? defaultLogger);
  runContext.sessionExchange.set(invocationState, exchange);
  return exchange;
}

/**
 * The run's exchange, if the host created one.
 * @param invocationState - The run's state.
 * @returns The {@link SessionExchange}, or `undefined` (also when the key holds something else).
 */
export function getSessionExchange(invocationState: InvocationState): SessionExchange | undefined {
  return runContext.sessionExchange.find(invocationState);
}
