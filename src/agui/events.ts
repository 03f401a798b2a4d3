/**
 * Maps the runner's stream events to AG-UI 1.0 events, keeping track of what
 * is open so every message and tool call can be closed before RUN_FINISHED.
 *
 * @module
 */
import {
  EventType,
  type AGUIEvent,
  type ReasoningEndEvent,
  type ReasoningMessageContentEvent,
  type ReasoningMessageEndEvent,
  type ReasoningMessageStartEvent,
  type ReasoningStartEvent,
  type SubagentErrorEvent,
  type SubagentFinishedEvent,
  type SubagentStartedEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from "@ag-ui/core";
import { isCallInterrupt } from "../agent/interrupts/interrupt-id.js";
import type { Message } from "../agent/messages/messages.js";
import { toolResultText } from "../agent/messages/messages.js";
import type { AgentStreamEvent } from "../agent/stream-events.js";
import type { ModelStreamEvent } from "../agent/model.js";

type Open = { kind: "text" | "reasoning"; id: string } | { kind: "tool"; id: string };

/** Stateful mapper for one run. */
export class AguiEventMapper {
  /** Id of the assistant message being streamed (one per model response). */
  responseId: string | undefined;
  readonly #open = new Map<number, Open>();
  readonly #newId: () => string;
  readonly #kindOf: (toolName: string) => string | undefined;
  /** Delegates (tools of kind `agent`) running now, by tool call id = subagent run id. */
  readonly #subagents = new Set<string>();
  /** Tool calls whose results were emitted in this run. */
  readonly completedToolCalls: string[] = [];

  /**
   * @param newId - Makes message ids.
   * @param kindOf - The kind of a tool by name; calls of kind `agent` (delegates) are announced as
   *   AG-UI subagents so a front end can show which agent is working. Default: none are.
   */
  constructor(newId: () => string, kindOf: (toolName: string) => string | undefined = () => undefined) {
    this.#newId = newId;
    this.#kindOf = kindOf;
  }

  /** AG-UI events for one runner stream event (possibly none). */
  map(event: AgentStreamEvent): AGUIEvent[] {
    const now = Date.now();
    switch (event.type) {
      case "model":
        return this.#model(event.event, now);
      case "toolStart":
        return this.#toolStart(event.toolUse.name, event.toolUse.toolUseId, now);
      case "interrupt":
        return this.#suspend(event.interrupts, now);
      case "toolResult":
        return this.#toolResult(event.result, now);
      case "message":
        nameMessage(event.message, this.responseId);
        return [];
      case "result":
        return [];
      default:
        event satisfies never;
        return [];
    }
  }

  /** END events for everything still open (an aborted or failed stream). */
  closeAll(): AGUIEvent[] {
    const now = Date.now();
    const out = [...this.#open.keys()].flatMap((index) => this.#close(index, now));
    for (const id of this.#subagents) {
      out.push({
        type: EventType.SUBAGENT_ERROR,
        timestamp: now,
        subagentRunId: id,
        message: "The run ended before this agent finished.",
      } satisfies SubagentErrorEvent);
    }
    this.#subagents.clear();
    return out;
  }

  #model(e: ModelStreamEvent, now: number): AGUIEvent[] {
    if (e.type === "messageStart") {
      // A retried model call starts over: close what the failed attempt left open.
      const closing = this.closeAll();
      this.responseId = this.#newId();
      return closing;
    }
    const rid = (this.responseId ??= this.#newId());
    if (e.type === "contentBlockStart") {
      if (e.start.type !== "toolUse")
        return this.#startText(e.index, e.start.type === "reasoning" ? "reasoning" : "text", rid, now);
      this.#open.set(e.index, { kind: "tool", id: e.start.toolUseId });
      const start = {
        type: EventType.TOOL_CALL_START,
        timestamp: now,
        toolCallId: e.start.toolUseId,
        toolCallName: e.start.name,
        parentMessageId: rid,
      } satisfies ToolCallStartEvent;
      return [start];
    }
    if (e.type === "contentBlockDelta") return this.#delta(e.index, e.delta, rid, now);
    if (e.type === "contentBlockStop") return this.#close(e.index, now);
    return [];
  }

  #delta(
    index: number,
    d: Extract<ModelStreamEvent, { type: "contentBlockDelta" }>["delta"],
    rid: string,
    now: number,
  ): AGUIEvent[] {
    let open = this.#open.get(index);
    const out: AGUIEvent[] = [];
    if (!open && d.type !== "toolUseInput") {
      out.push(...this.#startText(index, d.type === "reasoning" ? "reasoning" : "text", rid, now));
      open = this.#open.get(index);
    }
    if (!open) return out;
    const messageId = open.id;
    if (d.type === "text" && d.text)
      out.push({
        type: EventType.TEXT_MESSAGE_CONTENT,
        timestamp: now,
        messageId,
        delta: d.text,
      } satisfies TextMessageContentEvent);
    else if (d.type === "reasoning" && d.text)
      out.push({
        type: EventType.REASONING_MESSAGE_CONTENT,
        timestamp: now,
        messageId,
        delta: d.text,
      } satisfies ReasoningMessageContentEvent);
    else if (d.type === "toolUseInput" && d.input)
      out.push({
        type: EventType.TOOL_CALL_ARGS,
        timestamp: now,
        toolCallId: open.id,
        delta: d.input,
      } satisfies ToolCallArgsEvent);
    return out;
  }

  #toolStart(toolName: string, id: string, now: number): AGUIEvent[] {
    if (this.#kindOf(toolName) !== "agent") return [];
    this.#subagents.add(id);
    const started: SubagentStartedEvent = {
      type: EventType.SUBAGENT_STARTED,
      timestamp: now,
      subagentRunId: id,
      name: toolName,
      parentToolCallId: id,
    };
    if (this.responseId !== undefined) started.parentMessageId = this.responseId;
    return [started];
  }

  /** A delegate that needs an answer is suspended, not finished: it resumes on the next run. */
  #suspend(interrupts: readonly { id: string }[], now: number): AGUIEvent[] {
    return [...this.#subagents].map((id) => {
      this.#subagents.delete(id);
      const interruptIds = interrupts.filter((i) => isCallInterrupt(i.id, id)).map((i) => i.id);
      return {
        type: EventType.SUBAGENT_FINISHED,
        timestamp: now,
        subagentRunId: id,
        outcome: { type: "suspended", interruptIds },
      } satisfies SubagentFinishedEvent;
    });
  }

  #toolResult(result: Extract<AgentStreamEvent, { type: "toolResult" }>["result"], now: number): AGUIEvent[] {
    const id = result.toolUseId;
    this.completedToolCalls.push(id);
    const out: AGUIEvent[] = [];
    if (this.#subagents.delete(id)) {
      if (result.status === "error")
        out.push({
          type: EventType.SUBAGENT_ERROR,
          timestamp: now,
          subagentRunId: id,
          message: toolResultText(result.content),
        } satisfies SubagentErrorEvent);
      else
        out.push({
          type: EventType.SUBAGENT_FINISHED,
          timestamp: now,
          subagentRunId: id,
          outcome: { type: "success" },
        } satisfies SubagentFinishedEvent);
    }
    out.push({
      type: EventType.TOOL_CALL_RESULT,
      timestamp: now,
      messageId: `${id}-result`,
      toolCallId: id,
      content: toolResultText(result.content),
      role: "tool",
    } satisfies ToolCallResultEvent);
    return out;
  }

  #startText(index: number, kind: "text" | "reasoning", rid: string, now: number): AGUIEvent[] {
    if (kind === "text") {
      // A response's first text block carries the message id used in MESSAGES_SNAPSHOT.
      const id = [...this.#open.values()].some((o) => o.id === rid) ? `${rid}-${index}` : rid;
      this.#open.set(index, { kind, id });
      return [
        {
          type: EventType.TEXT_MESSAGE_START,
          timestamp: now,
          messageId: id,
          role: "assistant",
        } satisfies TextMessageStartEvent,
      ];
    }
    const id = `${rid}-reasoning`;
    this.#open.set(index, { kind, id });
    return [
      { type: EventType.REASONING_START, timestamp: now, messageId: id } satisfies ReasoningStartEvent,
      {
        type: EventType.REASONING_MESSAGE_START,
        timestamp: now,
        messageId: id,
        role: "reasoning",
      } satisfies ReasoningMessageStartEvent,
    ];
  }

  #close(index: number, now: number): AGUIEvent[] {
    const open = this.#open.get(index);
    if (!open) return [];
    this.#open.delete(index);
    if (open.kind === "tool")
      return [{ type: EventType.TOOL_CALL_END, timestamp: now, toolCallId: open.id } satisfies ToolCallEndEvent];
    if (open.kind === "text")
      return [{ type: EventType.TEXT_MESSAGE_END, timestamp: now, messageId: open.id } satisfies TextMessageEndEvent];
    return [
      { type: EventType.REASONING_MESSAGE_END, timestamp: now, messageId: open.id } satisfies ReasoningMessageEndEvent,
      { type: EventType.REASONING_END, timestamp: now, messageId: open.id } satisfies ReasoningEndEvent,
    ];
  }
}

/** Gives an appended assistant message the id its text was streamed under. */
function nameMessage(message: Message, responseId: string | undefined): void {
  if (message.role === "assistant" && message.id === undefined && responseId !== undefined) message.id = responseId;
}
