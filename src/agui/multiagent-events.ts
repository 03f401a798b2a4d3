/**
 * Orchestrator events → AG-UI 1.0 events, so a front end can draw which agent is working.
 *
 * **Why SUBAGENT_* and not STEP_*.** AG-UI 1.0 has both. `STEP_STARTED`/`STEP_FINISHED` name a
 * phase of *one* agent's run (`stepName` only): nothing ties a step to the tool call that spawned
 * it, a step cannot say it is suspended, and a failed step has no event of its own. A Graph
 * node, a Swarm agent or a delegate is another agent with its own invocation, which is exactly
 * what `SUBAGENT_STARTED` models: a per-invocation `subagentRunId` (our dot path,
 * `report.research#2`), the reusable `name` (the node id), `parentSubagentRunId` for nesting,
 * and `parentToolCallId` for the agent-as-tool pattern. `SUBAGENT_FINISHED` carries
 * `outcome: { type: "suspended", interruptIds }` for a node that paused on an approval (the
 * protocol's own word for "terminal for this stream, not for the subagent"), and
 * `SUBAGENT_ERROR` reports a failed node without ending the run (a Graph's other branches go on,
 * which `RUN_ERROR` could not express). A handoff has no dedicated AG-UI event; it is implied
 * by one subagent finishing and the next starting, and is also sent as `CUSTOM`
 * `kaboo_handoff` so a UI can draw the arrow with its message.
 *
 * @module
 */
import {
  EventType,
  type AGUIEvent,
  type CustomEvent,
  type SubagentErrorEvent,
  type SubagentFinishedEvent,
  type SubagentStartedEvent,
} from "@ag-ui/core";
import type { MultiAgentStreamEvent } from "../multiagent/types.js";

/** Name of the CUSTOM event a handoff becomes. */
export const HANDOFF_CUSTOM_EVENT = "kaboo_handoff";

/** Options of {@link toAguiEvents}. */
export interface ToAguiOptions {
  /** Clock for `timestamp` (ms). Default `Date.now`. */
  now?: () => number;
  /** The message that held the spawning tool call, when known (`parentMessageId`). */
  parentMessageId?: string;
}

/**
 * Maps one orchestrator event to AG-UI events (pure: no state, no I/O).
 *
 * - `multiagent_node_start` → `SUBAGENT_STARTED { subagentRunId: executionId, name: nodeId,
 *   parentSubagentRunId?, parentToolCallId?, parentMessageId? }`. The top orchestrator's own
 *   path is not a subagent, so a node's parent is named only when the node runs inside another node.
 * - `multiagent_node_stop` → `SUBAGENT_FINISHED` (completed: `result` = the node's text;
 *   interrupted: `outcome: { type: "suspended", interruptIds }`) or `SUBAGENT_ERROR`
 *   (failed / cancelled: `message`, `code` `NODE_FAILED` / `NODE_CANCELLED`).
 * - `multiagent_handoff` → `CUSTOM { name: "kaboo_handoff", value: { fromNodeIds, toNodeIds, message } }`.
 *
 * @param event - What the orchestrator passed to `onEvent`.
 * @param options - `now` (default `Date.now`), `parentMessageId` (default none).
 * @returns Zero or more AG-UI events, in order.
 * @example
 * ```ts
 * const graph = new Graph({ name: "report", nodes, edges, onEvent: (e) => { for (const a of toAguiEvents(e)) push(a); } });
 * ```
 */
export function toAguiEvents(event: MultiAgentStreamEvent, options: ToAguiOptions = {}): AGUIEvent[] {
  const timestamp = (options.now ?? Date.now)();
  switch (event.type) {
    case "multiagent_node_start":
      return [subagentStarted(event, timestamp, options)];
    case "multiagent_node_stop":
      return [subagentStopped(event, timestamp)];
    case "multiagent_handoff":
      return [
        {
          type: EventType.CUSTOM,
          timestamp,
          name: HANDOFF_CUSTOM_EVENT,
          value: {
            fromNodeIds: [...event.fromNodeIds],
            toNodeIds: [...event.toNodeIds],
            message: event.message ?? null,
          },
        } satisfies CustomEvent,
      ];
    default: {
      const never: never = event;
      return never;
    }
  }
}

type NodeStart = Extract<MultiAgentStreamEvent, { type: "multiagent_node_start" }>;
type NodeStop = Extract<MultiAgentStreamEvent, { type: "multiagent_node_stop" }>;

/** `SUBAGENT_STARTED`, tied to its parent run, tool call and message when known. */
function subagentStarted(event: NodeStart, timestamp: number, options: ToAguiOptions): SubagentStartedEvent {
  const out: SubagentStartedEvent = {
    type: EventType.SUBAGENT_STARTED,
    timestamp,
    subagentRunId: event.executionId,
    name: event.nodeId,
  };
  if (event.parentExecutionId?.includes(".")) out.parentSubagentRunId = event.parentExecutionId;
  if (event.parentToolCallId !== undefined) out.parentToolCallId = event.parentToolCallId;
  if (options.parentMessageId !== undefined) out.parentMessageId = options.parentMessageId;
  return out;
}

/** `SUBAGENT_FINISHED` (completed: success; interrupted: suspended) or `SUBAGENT_ERROR`. */
function subagentStopped(event: NodeStop, timestamp: number): SubagentFinishedEvent | SubagentErrorEvent {
  const base = { timestamp, subagentRunId: event.executionId };
  if (event.status === "completed")
    return { type: EventType.SUBAGENT_FINISHED, ...base, result: event.text ?? "", outcome: { type: "success" } };
  if (event.status === "interrupted") {
    const outcome = { type: "suspended" as const, interruptIds: event.interruptIds ?? [] };
    return { type: EventType.SUBAGENT_FINISHED, ...base, outcome };
  }
  return {
    type: EventType.SUBAGENT_ERROR,
    ...base,
    message: event.error ?? `Node "${event.nodeId}" ${event.status}.`,
    code: event.status === "cancelled" ? "NODE_CANCELLED" : "NODE_FAILED",
  };
}
