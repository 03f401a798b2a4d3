/**
 * Pure helpers of the EventPublisher: tool labels, result text, the task a grouped agent was
 * handed, and the callback wrapper that keeps a consumer's failure out of the run.
 *
 * @module
 */
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from "../../agent/messages.js";
import { messageText, toolResultText } from "../../agent/messages.js";
import type { Orchestrator } from "../../agent/events.js";
import type { AgentResult } from "../../agent/result.js";
import type { Logger } from "../../logger.js";
import type { StreamEvent, StreamEventCallback, StreamEventData } from "./types.js";

/**
 * Resolves a tool name to its display label: an exact entry wins, else the longest key that
 * prefixes the name (so `{ "github___": "GitHub" }` labels every `github___*` tool). An empty key
 * is no catch-all, as in the Python original.
 * @param toolName - The tool's name.
 * @param labels - Name or prefix → label.
 * @returns The label, or `null` when none applies.
 */
export function resolveToolLabel(toolName: string, labels: Readonly<Record<string, string>>): string | null {
  if (Object.hasOwn(labels, toolName)) return labels[toolName] ?? null;
  let best: string | null = null;
  let bestLength = 0;
  for (const prefix in labels) {
    if (prefix.length > bestLength && toolName.startsWith(prefix)) {
      best = labels[prefix] ?? null;
      bestLength = prefix.length;
    }
  }
  return best;
}

/**
 * The text of a tool result for a `TOOL_END` event, cut to `maxLen` characters plus `...` (as the
 * Python publisher does). A cut never splits a surrogate pair, so the text stays valid UTF-16.
 * @param result - The result block.
 * @param maxLen - Characters kept before the `...`.
 * @returns The text, or `null` when the result has none.
 */
export function resultText(result: ToolResultBlock | undefined, maxLen: number): string | null {
  if (!result || !Array.isArray(result.content)) return null;
  const raw = toolResultText(result.content);
  if (!raw) return null;
  if (raw.length <= maxLen) return raw;
  let end = maxLen;
  const last = raw.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${raw.slice(0, end)}...`;
}

/**
 * The task an agent was handed, as one readable line for its activity card: the newest user
 * message that carries text and is not only tool results. A swarm node's context blob is reduced
 * to its `Handoff Message:` (else `User Request:`) section.
 * @param messages - The incoming messages, newest last.
 * @param maxLen - Longest task kept (longer ones end in `…`). Default 400.
 * @returns The task, or `null` when there is none.
 */
export function incomingTask(messages: readonly Message[] | undefined, maxLen = 400): string | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const blocks: readonly ContentBlock[] | undefined = m?.content;
    // Transcripts may come from a client: tolerate a message without a content array.
    if (m?.role !== "user" || !Array.isArray(blocks)) continue;
    if (blocks.some((b) => b.type === "toolResult")) continue;
    const text = blocks
      .flatMap((b) => (b.type === "text" && typeof b.text === "string" && b.text.trim() ? [b.text] : []))
      .join("\n")
      .trim();
    if (!text) continue;
    const task = pickTaskLine(text);
    return task.length <= maxLen ? task : `${task.slice(0, maxLen - 1).trimEnd()}…`;
  }
  return null;
}

function pickTaskLine(text: string): string {
  for (const label of ["Handoff Message:", "User Request:"]) {
    const at = text.indexOf(label);
    if (at < 0) continue;
    // A labelled section runs to the next blank line.
    const section = text
      .slice(at + label.length)
      .split("\n\n", 1)[0]
      ?.trim();
    if (section) return section;
  }
  return text.trim();
}

/**
 * Wraps a consumer callback so that a throw or a rejected promise is logged and never reaches the
 * run. (The Python wrapper re-raises unexpected exceptions; here a publishing failure must not
 * cost the person their run, whatever it is.)
 * @param callback - The consumer.
 * @param agentName - Named in the log entry.
 * @param logger - Where failures go.
 * @returns A callback that never throws.
 */
export function safeCallback(
  callback: StreamEventCallback,
  agentName: string,
  logger: Logger,
): (event: StreamEvent) => void {
  const report = (event: StreamEvent, error: unknown) => {
    try {
      logger.error("kaboo: EventPublisher callback failed; the event was dropped.", {
        hook: "EventPublisher",
        agentName,
        eventType: event.type,
        error,
      });
    } catch {
      // A broken logger must not break the run either.
    }
  };
  return function publishStreamEvent(event: StreamEvent): void {
    try {
      const out = callback(event);
      if (out !== undefined && out !== null && typeof (out as Promise<void>).then === "function") {
        (out as Promise<void>).then(undefined, (error: unknown) => report(event, error));
      }
    } catch (error) {
      report(event, error);
    }
  };
}

/**
 * A readable message and type name for an error of any kind.
 * @param error - What was thrown.
 * @returns `{ text, type }` (`type` is the error's `name`, e.g. `ModelThrottledError`).
 */
export function describeError(error: unknown): { text: string; type: string } {
  if (error instanceof Error)
    return { text: error.message || String(error), type: error.name || error.constructor.name };
  if (typeof error === "string") return { text: error, type: "string" };
  try {
    return { text: JSON.stringify(error) ?? String(error), type: typeof error };
  } catch {
    return { text: String(error), type: typeof error };
  }
}

/** `graph`, `swarm`, …: the orchestrator's own `type` when it has one, else its class name (unless minified away). */
export function orchestratorType(source: Orchestrator): string | null {
  const own = (source as { type?: unknown }).type;
  if (typeof own === "string") return own;
  const name = (source as object).constructor?.name;
  return name && name !== "Object" ? name.toLowerCase() : null;
}

/** An orchestrator's or node's outcome: its own `status` (`interrupted`, `failed`, …) when it reports one. */
export function outcomeStatus(result: unknown, error: unknown): string {
  if (error !== undefined) return "error";
  const status = (result as { status?: unknown } | null | undefined)?.status;
  return typeof status === "string" ? status : "completed";
}

/** `AGENT_COMPLETE`'s data: usage (snake_case, cache counts only when non-zero), cycles, duration, stop reason, final text. */
export function completionData(result: AgentResult): StreamEventData {
  const { usage, cycles, durationMs } = result.metrics;
  const wireUsage: StreamEventData = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens,
  };
  if (usage.cacheReadInputTokens) wireUsage.cache_read_input_tokens = usage.cacheReadInputTokens;
  if (usage.cacheWriteInputTokens) wireUsage.cache_write_input_tokens = usage.cacheWriteInputTokens;
  return {
    usage: wireUsage,
    cycles,
    duration_ms: Math.round(durationMs),
    stop_reason: result.stopReason,
    text: messageText(result.message),
    message: result.message,
  };
}

/** The fields every tool event carries: `tool_name`, `tool_label`, `tool_use_id`. */
export function toolData(toolUse: ToolUseBlock, labels: Readonly<Record<string, string>>): StreamEventData {
  const name = toolUse.name || "unknown";
  return { tool_name: name, tool_label: resolveToolLabel(name, labels) || name, tool_use_id: toolUse.toolUseId ?? "" };
}
