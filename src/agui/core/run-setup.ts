/**
 * A run made ready from its AG-UI input: the `invocationState` filled from it (thread, run, grants,
 * person, shared state, context, ledger) and the agent prepared (the session exchange and the
 * restored pause, attachments, browser tools, the transcript), an expired answer refused first.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import type { Agent } from "../../agent/agent.js";
import { InterruptExpiredError } from "../../errors.js";
import { pausedCallIds } from "../../agent/interrupts/paused-calls.js";
import { createSessionExchange } from "../../agent/interrupts/session-exchange.js";
import { SESSION_STATE_KEY } from "../../agent/interrupts/session.js";
import { forwardedPropsWithGrants, runContext } from "../../agent/run-context.js";
import { isObject } from "../../agent/shared/guards.js";
import { isPastDeadline } from "../../hooks/approval/decision.js";
import { restoreSessionState } from "../../hooks/session-state-hook.js";
import { createReferenceRegistry } from "../../hooks/references/registry.js";
import { defaultLogger } from "../../logger.js";
import { watchAudit, type WatchedAudit } from "../audit-events.js";
import { assertContinuable } from "./checkpoint.js";
import { installClientTools } from "../client-tools.js";
import { collectReferences, fromAguiMessages } from "../messages.js";
import type { AguiRunOptions } from "./run.js";
import { answersOf } from "./spent-answers.js";

/** The run's `invocationState`, filled from the AG-UI input, and the AG-UI state it carries. */
export async function contextOf(
  o: AguiRunOptions,
): Promise<{ invocationState: InvocationState; state: Record<string, unknown>; audit: WatchedAudit }> {
  const { input } = o;
  // The run's shared state: hooks change it, so the caller's object is copied unless the caller
  // handed it over (the edge handler's own parse of the body; a copy of a wide state costs seconds).
  const state = isObject(input.state) ? (o.ownsInput ? input.state : { ...input.state }) : {};
  const invocationState: InvocationState = {};
  runContext.threadId.set(invocationState, input.threadId);
  runContext.runId.set(invocationState, input.runId);
  runContext.forwardedProps.set(
    invocationState,
    forwardedPropsWithGrants(
      input.forwardedProps,
      o.grantStore ? await o.grantStore.grantsFor(input.threadId, { principal: o.principal }) : undefined,
      { inPlace: o.ownsInput },
    ),
  );
  if (o.principal !== undefined) runContext.principal.set(invocationState, o.principal);
  runContext.sharedState.set(invocationState, state);
  runContext.contextItems.set(invocationState, input.context ?? []);
  if (o.ledger) runContext.executionLedger.set(invocationState, o.ledger);
  return { invocationState, state, audit: watchAudit(invocationState, o.audit, answersOf(input)) };
}

/**
 * Readies the agent for the run: the session exchange and the restored paused state, the
 * person's attachments, the host's `prepare`, browser tools, and the transcript from the input.
 * @returns The AG-UI ids of the tool messages, for the outgoing snapshot.
 */
export async function prepareAgent(
  o: AguiRunOptions,
  invocationState: InvocationState,
  state: Record<string, unknown>,
  baseSystemPrompt: string | undefined,
): Promise<Map<string, string>> {
  const { agent, input } = o;
  const resume = answersOf(input);
  const resuming = resume.length > 0 || o.continueRun === true;
  const logger = o.logger ?? defaultLogger;
  const exchange = createSessionExchange(invocationState, { inbound: state[SESSION_STATE_KEY], resuming, logger });
  // A cold agent needs the paused state before invoke() can tell a resume from new input
  // (restoring is a no-op on a fresh run or a warm agent).
  restoreSessionState(agent, invocationState, logger);
  if (o.continueRun) assertContinuable(agent, state[SESSION_STATE_KEY]);
  // This adapter publishes every open request (RUN_FINISHED interrupts + the state snapshot).
  exchange.publishesApprovals = true;
  // The person's attachments, for a ReferenceHook (a host's prepare() may replace the registry).
  createReferenceRegistry(invocationState, collectReferences(input.messages ?? []));
  await o.prepare?.(invocationState);
  installClientTools(agent, input.tools ?? [], o.clientToolHandlers ?? {});

  expiredAnswer(agent, resume, Date.now());
  const paused = pausedCalls(agent);
  const converted = fromAguiMessages(input.messages ?? [], resuming ? paused : new Set());
  agent.messages = converted.messages;
  if (converted.system.length)
    agent.systemPrompt = [baseSystemPrompt, ...converted.system].filter(Boolean).join("\n\n");
  return converted.toolMessageIds;
}

/** Tool call ids of the agent's paused batch. */
function pausedCalls(agent: Agent): Set<string> {
  return new Set(agent.interruptState.activated ? pausedCallIds(agent.interruptState.context) : []);
}

/**
 * Refuses a resume that resolves an interrupt after its `expiresAt` (AG-UI's own client refuses to
 * send one): the pause stays, and the host answers `cancelled` to continue the thread.
 * @throws InterruptExpiredError
 */
function expiredAnswer(agent: Agent, resume: readonly { interruptId: string; status: string }[], now: number): void {
  for (const e of resume) {
    if (e.status !== "resolved") continue;
    const request = agent.interruptState.interrupts.get(e.interruptId)?.reason as { expiresAt?: unknown } | undefined;
    if (isPastDeadline({ request, now })) throw new InterruptExpiredError(e.interruptId, String(request?.expiresAt));
  }
}
