/**
 * Maps the runner's stream events to AG-UI 1.0 events, keeping track of what
 * is open so every message and tool call can be closed before RUN_FINISHED.
 *
 * @module
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import type { Message } from "../agent/messages.js";
import { toolResultText } from "../agent/messages.js";
import type { AgentStreamEvent } from "../agent/stream-events.js";

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
  map(event: AgentStreamEvent): BaseEvent[] {
    const now = Date.now();
    switch (event.type) {
      case "model": {
        const e = event.event;
        if (e.type === "messageStart") {
          // A retried model call starts over: close what the failed attempt left open.
          const closing = this.closeAll();
          this.responseId = this.#newId();
          return closing;
        }
        const rid = (this.responseId ??= this.#newId());
        if (e.type === "contentBlockStart") {
          if (e.start.type === "toolUse") {
            this.#open.set(e.index, { kind: "tool", id: e.start.toolUseId });
            return [
              {
                type: EventType.TOOL_CALL_START,
                timestamp: now,
                toolCallId: e.start.toolUseId,
                toolCallName: e.start.name,
                parentMessageId: rid,
              } as BaseEvent,
            ];
          }
          return this.#startText(e.index, e.start.type === "reasoning" ? "reasoning" : "text", rid, now);
        }
        if (e.type === "contentBlockDelta") {
          const d = e.delta;
          let open = this.#open.get(e.index);
          const out: BaseEvent[] = [];
          if (!open && d.type !== "toolUseInput") {
            out.push(...this.#startText(e.index, d.type === "reasoning" ? "reasoning" : "text", rid, now));
            open = this.#open.get(e.index);
          }
          if (!open) return out;
          if (d.type === "text" && d.text)
            out.push({ type: EventType.TEXT_MESSAGE_CONTENT, timestamp: now, messageId: open.id, delta: d.text } as BaseEvent);
          else if (d.type === "reasoning" && d.text)
            out.push({
              type: EventType.REASONING_MESSAGE_CONTENT,
              timestamp: now,
              messageId: open.id,
              delta: d.text,
            } as BaseEvent);
          else if (d.type === "toolUseInput" && d.input)
            out.push({ type: EventType.TOOL_CALL_ARGS, timestamp: now, toolCallId: open.id, delta: d.input } as BaseEvent);
          return out;
        }
        if (e.type === "contentBlockStop") return this.#close(e.index, now);
        return [];
      }
      case "toolStart": {
        if (this.#kindOf(event.toolUse.name) !== "agent") return [];
        const id = event.toolUse.toolUseId;
        this.#subagents.add(id);
        const started: Record<string, unknown> = {
          type: EventType.SUBAGENT_STARTED,
          timestamp: now,
          subagentRunId: id,
          name: event.toolUse.name,
          parentToolCallId: id,
        };
        if (this.responseId !== undefined) started.parentMessageId = this.responseId;
        return [started as unknown as BaseEvent];
      }
      case "interrupt": {
        // A delegate that needs an answer is suspended, not finished: it resumes on the next run.
        return [...this.#subagents].map((id) => {
          this.#subagents.delete(id);
          const interruptIds = event.interrupts.filter((i) => i.id.includes(`:${id}:`)).map((i) => i.id);
          return {
            type: EventType.SUBAGENT_FINISHED,
            timestamp: now,
            subagentRunId: id,
            outcome: { type: "suspended", interruptIds },
          } as unknown as BaseEvent;
        });
      }
      case "toolResult": {
        this.completedToolCalls.push(event.result.toolUseId);
        const out: BaseEvent[] = [];
        const id = event.result.toolUseId;
        if (this.#subagents.delete(id)) {
          out.push(
            (event.result.status === "error"
              ? {
                  type: EventType.SUBAGENT_ERROR,
                  timestamp: now,
                  subagentRunId: id,
                  message: toolResultText(event.result.content),
                }
              : {
                  type: EventType.SUBAGENT_FINISHED,
                  timestamp: now,
                  subagentRunId: id,
                  outcome: { type: "success" },
                }) as unknown as BaseEvent,
          );
        }
        return [
          ...out,
          {
            type: EventType.TOOL_CALL_RESULT,
            timestamp: now,
            messageId: `${event.result.toolUseId}-result`,
            toolCallId: event.result.toolUseId,
            content: toolResultText(event.result.content),
            role: "tool",
          } as BaseEvent,
        ];
      }
      case "message":
        nameMessage(event.message, this.responseId);
        return [];
      default:
        return [];
    }
  }

  /** END events for everything still open (an aborted or failed stream). */
  closeAll(): BaseEvent[] {
    const now = Date.now();
    const out = [...this.#open.keys()].flatMap((index) => this.#close(index, now));
    for (const id of this.#subagents) {
      out.push({
        type: EventType.SUBAGENT_ERROR,
        timestamp: now,
        subagentRunId: id,
        message: "The run ended before this agent finished.",
      } as unknown as BaseEvent);
    }
    this.#subagents.clear();
    return out;
  }

  #startText(index: number, kind: "text" | "reasoning", rid: string, now: number): BaseEvent[] {
    if (kind === "text") {
      // A response's first text block carries the message id used in MESSAGES_SNAPSHOT.
      const id = [...this.#open.values()].some((o) => o.id === rid) ? `${rid}-${index}` : rid;
      this.#open.set(index, { kind, id });
      return [{ type: EventType.TEXT_MESSAGE_START, timestamp: now, messageId: id, role: "assistant" } as BaseEvent];
    }
    const id = `${rid}-reasoning`;
    this.#open.set(index, { kind, id });
    return [
      { type: EventType.REASONING_START, timestamp: now, messageId: id } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_START, timestamp: now, messageId: id, role: "reasoning" } as BaseEvent,
    ];
  }

  #close(index: number, now: number): BaseEvent[] {
    const open = this.#open.get(index);
    if (!open) return [];
    this.#open.delete(index);
    if (open.kind === "tool") return [{ type: EventType.TOOL_CALL_END, timestamp: now, toolCallId: open.id } as BaseEvent];
    if (open.kind === "text") return [{ type: EventType.TEXT_MESSAGE_END, timestamp: now, messageId: open.id } as BaseEvent];
    return [
      { type: EventType.REASONING_MESSAGE_END, timestamp: now, messageId: open.id } as BaseEvent,
      { type: EventType.REASONING_END, timestamp: now, messageId: open.id } as BaseEvent,
    ];
  }
}

/** Gives an appended assistant message the id its text was streamed under. */
function nameMessage(message: Message, responseId: string | undefined): void {
  if (message.role === "assistant" && message.id === undefined && responseId !== undefined) message.id = responseId;
}
