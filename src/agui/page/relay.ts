/**
 * What a watching tab passes on of the driving tab's events. A watcher joins mid-run: it asks the
 * driver for what is open now (the message so far), and a message or call it did not see start and
 * did not get in that answer is left out (the closing snapshots bring it), so its own AG-UI client
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
  /** Parts this watcher saw start live: the driver's answer to its join repeats what it has of them. */
  readonly #live = new Set<string>();

  /** @returns What the watcher passes on of `event` (possibly nothing). */
  accept(event: BaseEvent): BaseEvent[] {
    const type: string = event.type;
    const id = idOf(event);
    const start = STARTS.get(type);
    if (start && id) {
      this.#open.set(`${start}:${id}`, start);
      this.#live.add(`${start}:${id}`);
      return [event];
    }
    const middle = MIDDLES.get(type);
    if (middle) return id && this.#open.has(`${middle}:${id}`) ? [event] : [];
    const end = ENDS.get(type);
    if (end) return id && this.#open.delete(`${end}:${id}`) ? [event] : [];
    return WHOLE.has(type) ? [event] : [];
  }

  /**
   * An event of the driver's answer to this watcher's join: a part open at the driver (its START,
   * then its content so far in one event). A part this watcher saw start live is left out (it has
   * every event of it since); what follows the answer comes live.
   * @returns What the watcher passes on of `event`.
   */
  acceptCatchUp(event: BaseEvent): BaseEvent[] {
    const type: string = event.type;
    const id = idOf(event);
    const part = STARTS.get(type) ?? MIDDLES.get(type);
    if (!part || !id || this.#live.has(`${part}:${id}`)) return [];
    if (STARTS.has(type)) this.#open.set(`${part}:${id}`, part);
    return this.#open.has(`${part}:${id}`) ? [event] : [];
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

/**
 * What a driving tab has open now, for a watcher that joins mid-message: each open part's START and
 * its content so far (one CONTENT/ARGS event holding every delta).
 */
export class OpenParts {
  readonly #open = new Map<string, { start: BaseEvent; middle?: BaseEvent; delta: string }>();

  /** Follows an event the driver sends. */
  note(event: BaseEvent): void {
    const type: string = event.type;
    const id = idOf(event);
    if (!id) return;
    const start = STARTS.get(type);
    if (start) this.#open.set(`${start}:${id}`, { start: event, delta: "" });
    const middle = MIDDLES.get(type);
    const part = middle && this.#open.get(`${middle}:${id}`);
    const delta = (event as { delta?: unknown }).delta;
    if (part && typeof delta === "string") {
      part.middle = event;
      part.delta += delta;
    }
    const end = ENDS.get(type);
    if (end) this.#open.delete(`${end}:${id}`);
  }

  /** @returns The events that bring a watcher to where the driver is, oldest part first. */
  catchUp(): BaseEvent[] {
    return [...this.#open.values()].flatMap((p) =>
      p.middle && p.delta ? [p.start, { ...p.middle, delta: p.delta }] : [p.start],
    );
  }
}

function idOf(event: BaseEvent): string | undefined {
  const e = event as { messageId?: unknown; toolCallId?: unknown };
  const id = e.toolCallId ?? e.messageId;
  return typeof id === "string" ? id : undefined;
}
