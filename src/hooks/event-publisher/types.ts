/**
 * The events an {@link EventPublisher} delivers, and their wire form.
 *
 * The field names inside `data` are snake_case (`tool_use_id`, `stream_group`, …) exactly as the
 * Python `kaboo_workflows.hooks.EventPublisher` sends them: a front end written against a Python
 * host reads a TypeScript host's events unchanged. Only the event object's own field is
 * camelCase (`agentName`); {@link streamEventToJSON} gives the Python `asdict()` form.
 *
 * @module
 */

/**
 * Every kind of {@link StreamEvent}. Keys as the Python `EventType` enum, values its (lower-case)
 * enum values, which are what goes over the wire.
 *
 * - Per agent: `AGENT_START`, `TOKEN`, `TOOL_INPUT`, `REASONING`, `TOOL_START`, `TOOL_END`,
 *   `INTERRUPT`, `AGENT_COMPLETE`, `ERROR` (a failed model call or a failed run).
 * - Stream groups (only when the publisher has a `streamGroup`): `STREAM_GROUP_START`, `STREAM_GROUP_END`.
 * - Orchestrators: `MULTIAGENT_START`, `NODE_START`, `NODE_STOP`, `HANDOFF`, `MULTIAGENT_COMPLETE`.
 */
export const EventType = {
  AGENT_START: "agent_start",
  STREAM_GROUP_START: "stream_group_start",
  STREAM_GROUP_END: "stream_group_end",
  TOKEN: "token",
  TOOL_INPUT: "tool_input",
  REASONING: "reasoning",
  TOOL_START: "tool_start",
  TOOL_END: "tool_end",
  INTERRUPT: "interrupt",
  AGENT_COMPLETE: "agent_complete",
  ERROR: "error",
  MULTIAGENT_START: "multiagent_start",
  NODE_START: "node_start",
  NODE_STOP: "node_stop",
  HANDOFF: "handoff",
  MULTIAGENT_COMPLETE: "multiagent_complete",
} as const;

/** One of the {@link EventType} values, e.g. `"tool_start"`. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** What one published event carries besides its kind. Keys are snake_case (wire names). */
export type StreamEventData = Record<string, unknown>;

/** One event published by an {@link EventPublisher}. */
export interface StreamEvent {
  type: EventType;
  /** The publisher's agent (or orchestrator) name. */
  agentName: string;
  /** Milliseconds since the epoch (integer), when the event was made. */
  timestamp: number;
  /** Snake_case payload, as the Python publisher's `data`. */
  data: StreamEventData;
}

/**
 * Receives each {@link StreamEvent}, synchronously and in order. It may return a promise: the
 * publisher does not wait for it (a slow consumer never stalls the run) but logs a rejection.
 */
export type StreamEventCallback = (event: StreamEvent) => void | Promise<void>;

/** The Python `StreamEvent.asdict()` form: `{ type, agent_name, timestamp, data }`. */
export interface StreamEventJSON {
  type: EventType;
  agent_name: string;
  /** Seconds since the epoch, as Python's `time.time()`. */
  timestamp: number;
  data: StreamEventData;
}

/**
 * Converts an event to the wire form a Python host sends (`agent_name`, timestamp in seconds).
 * @param event - The event.
 * @returns A plain object for `JSON.stringify`.
 * @example
 * ```ts
 * const publisher = new EventPublisher((e) => socket.send(JSON.stringify(streamEventToJSON(e))), "analyst");
 * ```
 */
export function streamEventToJSON(event: StreamEvent): StreamEventJSON {
  return { type: event.type, agent_name: event.agentName, timestamp: event.timestamp / 1000, data: event.data };
}

/**
 * What an orchestrator (Graph, Swarm) passes to a stream handler when one node hands over to the
 * next; becomes a `HANDOFF` event.
 */
export interface MultiAgentHandoffEvent {
  type: "multiagent_handoff";
  fromNodeIds: readonly string[];
  toNodeIds: readonly string[];
  /** The handing node's message, if any. */
  message?: unknown;
}
