/**
 * `kaboo-workflows/multiagent`: Graph, Swarm and delegates on the same runner and hook registry.
 *
 * @module
 */
export { Graph } from "./graph.js";
export type { GraphEdge, GraphOptions, GraphResult, GraphView } from "./graph.js";
export { Swarm, HANDOFF_TOOL } from "./swarm.js";
export type { Handoff, SwarmOptions, SwarmResult } from "./swarm.js";
export { agentAsTool } from "./delegate.js";
export type { AgentAsToolOptions, DelegateSnapshot } from "./delegate.js";
export { MultiAgentBase, STREAM_PATH_KEY, orchestrationText } from "./base.js";
export type { MultiAgentInvokeOptions, MultiAgentNode, MultiAgentOptions, PausedNode } from "./base.js";
export { HandoffEvent, MultiAgentTimeoutError } from "./types.js";
export type {
  MultiAgentEventSink,
  MultiAgentResult,
  MultiAgentStreamEvent,
  NodeContext,
  NodeExecutor,
  NodeOutput,
  NodeResult,
  NodeStatus,
} from "./types.js";
