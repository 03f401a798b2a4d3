/**
 * Metrics of a run: cycles, token usage, per-tool counts and durations, model latency.
 *
 * @module
 */
import type { Usage } from "./model.js";

/** Counts and time of one tool across a run. */
export interface ToolMetrics {
  calls: number;
  successes: number;
  errors: number;
  /** Wall time spent in the tool, milliseconds. */
  totalMs: number;
}

/** Everything measured about one invocation. */
export interface AgentMetrics {
  /** Model calls that produced a response (retries excluded). */
  cycles: number;
  /** Model attempts including retries. */
  modelCalls: number;
  usage: Usage;
  /** Time from request to the end of each model stream, milliseconds. */
  modelLatencyMs: number[];
  tools: Record<string, ToolMetrics>;
  /** Wall time of the invocation, milliseconds. */
  durationMs: number;
}

/** A fresh, zeroed {@link AgentMetrics}. */
export function emptyMetrics(): AgentMetrics {
  return {
    cycles: 0,
    modelCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    modelLatencyMs: [],
    tools: Object.create(null) as Record<string, ToolMetrics>,
    durationMs: 0,
  };
}

/** Adds one call's usage to a running total. */
export function addUsage(total: Usage, add: Usage): void {
  total.inputTokens += add.inputTokens;
  total.outputTokens += add.outputTokens;
  total.totalTokens += add.totalTokens;
  if (add.cacheReadInputTokens)
    total.cacheReadInputTokens = (total.cacheReadInputTokens ?? 0) + add.cacheReadInputTokens;
  if (add.cacheWriteInputTokens)
    total.cacheWriteInputTokens = (total.cacheWriteInputTokens ?? 0) + add.cacheWriteInputTokens;
}

/** Records one tool call. */
export function recordTool(metrics: AgentMetrics, name: string, ok: boolean, ms: number): void {
  const t = (metrics.tools[name] ??= { calls: 0, successes: 0, errors: 0, totalMs: 0 });
  t.calls++;
  if (ok) t.successes++;
  else t.errors++;
  t.totalMs += ms;
}
