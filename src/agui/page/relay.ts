/**
 * What a watching tab passes on of the driving tab's events. A watcher joins mid-run: a message or
 * call it did not see start is left out (the closing snapshots bring it), so its own AG-UI client
 * never reads an END without a START.
 *
 * @module
 */
import { EventType, type BaseEvent } from "@ag-ui/core";

type Part = "text" | "tool" | "reasoning" | "reasoningMessage";

const STARTS: ReadonlyMap<string, Part> = new Map<string, Part>([
  [EventType.TEXT_MESSAGE_START, "text"],
  [EventType.TOOL_CALL_START, "tool"],
  [EventType.REASONING_START, "reasoning"],
  [EventType.REASONING_MESSAGE_START, "reasoningMessage"],
]);
const MIDDLES: ReadonlyMap<string, Part> = new Map<string, Part>([
  [EventType.TEXT_MESSAGE_CONTENT, "text"],
  [EventType.TOOL_CALL_ARGS, "tool"],
  [EventType.REASONING_MESSAGE_CONTENT, "reasoningMessage"],
]);
const ENDS: ReadonlyMap<string, Part> = new Map<string, Part>([
  [EventType.TEXT_MESSAGE_END, "text"],
  [EventType.TOOL_CALL_END, "tool"],
  [EventType.REASONING_END, "reasoning"],
  [EventType.REASONING_MESSAGE_END, "reasoningMessage"],
]);
const CLOSERS: Readonly<Record<Part, EventType>> = {
  text: EventType.TEXT_MESSAGE_END,
  tool: EventType.TOOL_CALL_END,
  reasoning: EventType.REASONING_END,
  reasoningMessage: EventType.REASONING_MESSAGE_END,
};
// Whole events a watcher can always take. State deltas are left out: they patch the driver's state,
// which the watcher may not hold; the closing STATE_SNAPSHOT brings it.
const WHOLE: ReadonlySet<string> = new Set<string>([
  EventType.TOOL_CALL_RESULT,
  EventType.STATE_SNAPSHOT,
  EventType.MESSAGES_SNAPSHOT,
  EventType.RUN_FINISHED,
  EventType.RUN_ERROR,
  EventType.CUSTOM,
]);

/** Filters a driver's events for a watcher that joined at any point. */
export class EventRelay {
  readonly #open = new Map<string, Part>();

  /** @returns What the watcher passes on of `event` (possibly nothing). */
  accept(event: BaseEvent): BaseEvent[] {
    const type: string = event.type;
    const id = idOf(event);
    const start = STARTS.get(type);
    if (start && id) {
      this.#open.set(`${start}:${id}`, start);
      return [event];
    }
    const middle = MIDDLES.get(type);
    if (middle) return id && this.#open.has(`${middle}:${id}`) ? [event] : [];
    const end = ENDS.get(type);
    if (end) return id && this.#open.delete(`${end}:${id}`) ? [event] : [];
    return WHOLE.has(type) ? [event] : [];
  }

  /** END events for what is still open (the driver died mid-message). */
  closeAll(now: number = Date.now()): BaseEvent[] {
    const out: BaseEvent[] = [];
    for (const [key, part] of [...this.#open].reverse()) {
      const id = key.slice(part.length + 1);
      out.push(
        part === "tool"
          ? { type: CLOSERS[part], toolCallId: id, timestamp: now }
          : { type: CLOSERS[part], messageId: id, timestamp: now },
      );
    }
    this.#open.clear();
    return out;
  }
}

function idOf(event: BaseEvent): string | undefined {
  const e = event as { messageId?: unknown; toolCallId?: unknown };
  const id = e.toolCallId ?? e.messageId;
  return typeof id === "string" ? id : undefined;
}
