/**
 * The EventPublisher's lifecycle events: what it publishes for an invocation's start, a failed model
 * call, a tool's start and end, the invocation's end and an orchestrator's steps. The publisher loads
 * this module with its first event (in a page: with the first run), so a page does not ship it.
 *
 * @module
 */
// Loaded on demand; it imports the helpers it shares with the publisher plainly, and reads the
// publisher's state through `PublisherHost`.
import type {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  AfterToolCallEvent,
  BeforeInvocationEvent,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  InvocationState,
  Orchestrator,
} from "../../agent/events.js";
import {
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
  messageText,
  toolResultText,
} from "../../agent/messages/messages.js";
import type { AgentResult } from "../../agent/result.js";
import { runContext } from "../../agent/run-context.js";
import { incomingTask, resolveToolLabel } from "./helpers.js";
import type { PublisherSettings } from "./options.js";
import type { ThreadStates } from "./threads.js";
import type { EventType, StreamEventData } from "./types.js";

/** What the lifecycle reads and calls of its publisher. */
export interface PublisherHost {
  readonly settings: PublisherSettings;
  readonly threads: ThreadStates;
  /** Whether `markInlineChatOwner()` was called. */
  inlineChatOwner(): boolean;
  /** Publishes an agent's event, with its group, agent name, thread and run ids added. */
  agentEvent(type: EventType, state: InvocationState, data: StreamEventData): void;
  /** Publishes an event as is (an orchestrator's). */
  emit(type: EventType, data: StreamEventData): void;
  threadOf(state: InvocationState | undefined): string | undefined;
  runOf(state: InvocationState | undefined): string | undefined;
}

/** One publisher's lifecycle events (see `EventPublisher` for what each carries). */
export class Lifecycle {
  readonly #host: PublisherHost;

  /** @param host - The publisher. */
  constructor(host: PublisherHost) {
    this.#host = host;
  }

  /** `STREAM_GROUP_START` for a fresh invocation of a grouped publisher, then `AGENT_START`. */
  agentStart(event: BeforeInvocationEvent): void {
    const h = this.#host;
    const s = h.settings;
    const thread = h.threads.use(h.threadOf(event.invocationState), s.group);
    thread.running++;
    thread.errored = false;
    // A resume continues the paused invocation: same group, no new `#N`, no second group start.
    if (!event.resuming) {
      thread.count++;
      // A node run by an orchestrator gets its dot path (with the orchestrator's own `#N`) as its group.
      const path = runContext.streamPath.find(event.invocationState);
      const group = path ? path : s.group ? (thread.count > 1 ? `${s.group}#${thread.count}` : s.group) : "";
      if (group) {
        thread.activeGroup = group;
        const dot = group.lastIndexOf(".");
        h.agentEvent("stream_group_start", event.invocationState, {
          parent_group: dot >= 0 ? group.slice(0, dot) : null,
          tool_call_id: runContext.delegationId.find(event.invocationState) ?? null,
          // BeforeInvocation fires before the input joins the transcript; an event that carries
          // the incoming messages gives the task, otherwise the card shows none.
          task: incomingTask(event.messages as Message[]),
          is_chat_reply: s.isChatReply,
          inline_chat_owner: h.inlineChatOwner(),
        });
      }
    }
    h.agentEvent("agent_start", event.invocationState, {});
  }

  /** `ERROR` for a failed model call (and the error latch, so a failed run does not publish it twice). */
  modelError(event: AfterModelCallEvent): void {
    if (event.error === undefined) return;
    const h = this.#host;
    const thread = h.threads.peek(h.threadOf(event.invocationState));
    if (thread) thread.errored = true;
    const { text, type } = describeError(event.error);
    h.agentEvent("error", event.invocationState, { text, exception_type: type, attempt: event.attempt });
  }

  /** `TOOL_START` with the call's input. */
  toolStart(event: BeforeToolCallEvent): void {
    const data = this.#toolData(event.toolUse);
    data.tool_input = event.toolUse.input ?? {};
    this.#host.agentEvent("tool_start", event.invocationState, data);
  }

  /** `TOOL_END` with the status, the error and the result's text. */
  toolEnd(event: AfterToolCallEvent): void {
    const data = this.#toolData(event.toolUse);
    data.status = event.error !== undefined || event.result?.status === "error" ? "error" : "success";
    data.error = event.error === undefined ? null : describeError(event.error).text;
    data.tool_result = this.#resultText(event.result);
    this.#host.agentEvent("tool_end", event.invocationState, data);
  }

  /** The invocation's end: `AGENT_COMPLETE`, an `INTERRUPT` per open question, or the run's `ERROR`. */
  complete(event: AfterInvocationEvent): void {
    const h = this.#host;
    const state = event.invocationState;
    const thread = h.threads.peek(h.threadOf(state));
    const errored = thread?.errored ?? false;
    if (thread) {
      thread.running = Math.max(0, thread.running - 1);
      thread.errored = false;
    }
    const result = event.result;
    if (!result) {
      if (!errored) {
        const { text, type } = describeError(event.error);
        h.agentEvent("error", state, { text, exception_type: type });
      }
      if (thread?.activeGroup) h.agentEvent("stream_group_end", state, { status: "error" });
      return;
    }
    if (result.stopReason === "interrupt") {
      for (const i of result.interrupts) {
        h.agentEvent("interrupt", state, { interrupt_id: i.id, name: i.name, reason: i.reason ?? null });
      }
      return;
    }
    h.agentEvent("agent_complete", state, this.#completionData(result));
    if (thread?.activeGroup)
      h.agentEvent("stream_group_end", state, {
        status: result.stopReason === "cancelled" ? "cancelled" : "completed",
      });
  }

  /** `MULTIAGENT_START`. */
  multiAgentStart(event: BeforeMultiAgentInvocationEvent): void {
    this.#orchestrator("multiagent_start", event.agent, event.invocationState, {});
  }

  /** `NODE_START`. */
  nodeStart(event: BeforeNodeCallEvent): void {
    this.#orchestrator("node_start", event.agent, event.invocationState, { node_id: event.nodeId });
  }

  /** `NODE_STOP` with the node's outcome. */
  nodeStop(event: AfterNodeCallEvent): void {
    const status = outcomeStatus(event.result, event.error);
    this.#orchestrator("node_stop", event.agent, event.invocationState, { node_id: event.nodeId, status });
  }

  /** `MULTIAGENT_COMPLETE` with the orchestrator's outcome. */
  multiAgentComplete(event: AfterMultiAgentInvocationEvent): void {
    const status = outcomeStatus(event.result, event.error);
    this.#orchestrator("multiagent_complete", event.agent, event.invocationState, { status });
  }

  #orchestrator(type: EventType, source: Orchestrator, state: InvocationState, data: StreamEventData): void {
    const h = this.#host;
    // As in the Python original, orchestrator events carry no stream group: groups belong to agents.
    data.multiagent_type = orchestratorType(source);
    data.agent_name = h.settings.agentName;
    data.thread_id = h.threadOf(state) ?? null;
    data.run_id = h.runOf(state) ?? null;
    h.emit(type, data);
  }

  /** The fields every tool event carries: `tool_name`, `tool_label`, `tool_use_id`. */
  #toolData(toolUse: ToolUseBlock): StreamEventData {
    const name = toolUse.name || "unknown";
    const label = resolveToolLabel(name, this.#host.settings.labels);
    return { tool_name: name, tool_label: label || name, tool_use_id: toolUse.toolUseId ?? "" };
  }

  /** The result's text, cut to `maxResultLen` characters plus `...` (see {@link resultText}). */
  #resultText(result: ToolResultBlock | undefined): string | null {
    return resultText(result, this.#host.settings.maxResultLen, toolResultText);
  }

  /**
   * `AGENT_COMPLETE`'s data: usage (snake_case, cache counts only when non-zero), cycles, duration, stop
   * reason, final text.
   */
  #completionData(result: AgentResult): StreamEventData {
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
}

/**
 * The text of a tool result for a `TOOL_END` event, cut to `maxLen` characters plus `...` (as the
 * Python publisher does). A cut never splits a surrogate pair, so the text stays valid UTF-16.
 * @param result - The result block.
 * @param maxLen - Characters kept before the `...`.
 * @param text - The result's text (`toolResultText` of the core entry).
 * @returns The text, or `null` when the result has none.
 */
export function resultText(
  result: ToolResultBlock | undefined,
  maxLen: number,
  text: typeof toolResultText,
): string | null {
  if (!result || !Array.isArray(result.content)) return null;
  const raw = text(result.content);
  if (!raw) return null;
  if (raw.length <= maxLen) return raw;
  let end = maxLen;
  const last = raw.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${raw.slice(0, end)}...`;
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
function orchestratorType(source: Orchestrator): string | null {
  const own = (source as { type?: unknown }).type;
  if (typeof own === "string") return own;
  const name = (source as object).constructor?.name;
  return name && name !== "Object" ? name.toLowerCase() : null;
}

/** An orchestrator's or node's outcome: its own `status` (`interrupted`, `failed`, …) when it reports one. */
function outcomeStatus(result: unknown, error: unknown): string {
  if (error !== undefined) return "error";
  const status = (result as { status?: unknown } | null | undefined)?.status;
  return typeof status === "string" ? status : "completed";
}
