/**
 * Strands' invocation events through our hooks. `BeforeInvocationEvent` maps one to one. Our
 * `AfterInvocationEvent` carries the run's result, which Strands' does not: it is dispatched at Strands'
 * `AgentResultEvent` (fired after `AfterInvocationEvent`, with the result: completed, paused or cancelled).
 * Strands fires no result for a run that failed, so our hooks see no end for it (the README says so).
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { AfterInvocationEvent, BeforeInvocationEvent, type InvocationState } from "../agent/events.js";
import type { HookRegistry } from "../agent/hooks.js";
import type { Interrupt } from "../agent/interrupts/interrupt.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { emptyMetrics } from "../agent/metrics.js";
import type { AgentResult, StopReason } from "../agent/result.js";
import { ourMessage } from "./convert.js";
import type { StrandsAgent, StrandsAgentResult, StrandsHookHost, StrandsSdk } from "./sdk.js";

/** What the bridge needs from the adapter. */
export interface InvocationBridge {
  sdk: StrandsSdk;
  registry: HookRegistry;
  view(agent: StrandsAgent): Agent;
  now: () => number;
}

/** Strands' stop reasons our result type has; any other one reads as `endTurn` (the run ended normally). */
const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>([
  "endTurn",
  "toolUse",
  "maxTokens",
  "stopSequence",
  "contentFiltered",
  "interrupt",
  "cancelled",
]);

const started = new WeakMap<InvocationState, number>();

/**
 * A Strands result as ours.
 * @param result - Strands' `AgentResult`.
 * @param durationMs - The invocation's wall time.
 * @returns Our `AgentResult`.
 */
export function ourAgentResult(result: StrandsAgentResult, durationMs: number): AgentResult {
  const metrics = emptyMetrics();
  metrics.durationMs = durationMs;
  if (result.metrics) {
    const u = result.metrics.accumulatedUsage;
    metrics.cycles = result.metrics.cycleCount;
    metrics.usage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens };
    if (u.cacheReadInputTokens) metrics.usage.cacheReadInputTokens = u.cacheReadInputTokens;
    if (u.cacheWriteInputTokens) metrics.usage.cacheWriteInputTokens = u.cacheWriteInputTokens;
  }
  const interrupts: Interrupt[] = (result.interrupts ?? []).map((i) =>
    i.reason === undefined ? { id: i.id, name: i.name } : { id: i.id, name: i.name, reason: i.reason as JsonValue },
  );
  return {
    stopReason: (STOP_REASONS.has(result.stopReason) ? result.stopReason : "endTurn") as StopReason,
    message: ourMessage(result.lastMessage).message,
    interrupts,
    metrics,
  };
}

/**
 * Registers the invocation callbacks on a Strands agent.
 * @param host - The Strands agent.
 * @param b - The adapter's parts.
 */
export function bridgeInvocations(host: StrandsHookHost, b: InvocationBridge): void {
  host.addHook(b.sdk.BeforeInvocationEvent, async (event) => {
    started.set(event.invocationState, b.now());
    if (!b.registry.has(BeforeInvocationEvent)) return;
    const resuming = event.agent._interruptState?.activated === true;
    await b.registry.invoke(new BeforeInvocationEvent(b.view(event.agent), event.invocationState, resuming));
  });
  host.addHook(b.sdk.AgentResultEvent, async (event) => {
    if (!b.registry.has(AfterInvocationEvent)) return;
    const state = event.invocationState;
    const result = ourAgentResult(event.result, b.now() - (started.get(state) ?? b.now()));
    await b.registry.invoke(new AfterInvocationEvent(b.view(event.agent), state, result));
  });
}
