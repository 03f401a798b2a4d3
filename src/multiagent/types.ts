/**
 * Shared types of the orchestrators: node results, statuses, the events they hand to an
 * `onEvent` callback, and the handoff hook event.
 *
 * @module
 */
import { HookEvent, type InvocationState, type Orchestrator } from "../agent/events.js";
import type { HookProvider } from "../agent/hooks.js";
import type { Interrupt } from "../agent/interrupts/interrupt.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { KabooError } from "../errors.js";

/** How one node (or a whole orchestration) ended. */
export type NodeStatus = "completed" | "failed" | "interrupted" | "cancelled";

/** What a node produced. */
export interface NodeOutput {
  /** The node's final text (an agent's last message, an executor's string or JSON). */
  text: string;
  /** A structured value, when the node returned one (executors, nested orchestrators' status). */
  value?: JsonValue;
}

/** The latest outcome of one node. */
export interface NodeResult {
  status: NodeStatus;
  result?: NodeOutput;
  /** Why the node failed (its error's message, a `cancelNode` message, a timeout). */
  error?: string;
  durationMs: number;
}

/** The outcome of `graph.invoke()` / `swarm.invoke()`. */
export interface MultiAgentResult {
  /** `interrupted` > `failed` > `cancelled` > `completed`: the first that applies. */
  status: NodeStatus;
  /** Latest result per node id. */
  results: Record<string, NodeResult>;
  /** Node ids in the order they started (a node that ran twice appears twice). */
  executionOrder: string[];
  /** Nodes a `BeforeNodeCallEvent` hook cancelled (e.g. MultiAgentStopGuard). */
  cancelledNodes: string[];
  /** Unanswered interrupts when `status` is `interrupted`; answer them with `invoke([{ interruptResponse }])`. */
  interrupts: Interrupt[];
  /** Why the orchestration failed when no single node explains it (limits, deadlock, total timeout). */
  reason?: string;
  durationMs: number;
}

/** Context handed to a {@link NodeExecutor}. */
export interface NodeContext {
  readonly nodeId: string;
  readonly invocationState: InvocationState;
  /** Aborted on node timeout, total timeout or cancellation. */
  readonly signal: AbortSignal;
}

/** A node that is plain code rather than an agent. Return a string, or any JSON value. */
export interface NodeExecutor {
  execute(input: string, context: NodeContext): unknown;
}

/**
 * What an orchestrator passes to its `onEvent` callback. The handoff shape is the one
 * `EventPublisher.asCallbackHandler()` turns into `HANDOFF`; the node events feed
 * `toAguiEvents` (in `kaboo-workflows/agui`). `executionId` is a dot path (`research.web#2`: the orchestrator's stream
 * path, the node id, and `#N` from a node's second execution on).
 */
export type MultiAgentStreamEvent =
  | { type: "multiagent_handoff"; fromNodeIds: readonly string[]; toNodeIds: readonly string[]; message?: unknown }
  | {
      type: "multiagent_node_start";
      orchestrator: string;
      nodeId: string;
      executionId: string;
      parentExecutionId?: string;
      parentToolCallId?: string;
    }
  | {
      type: "multiagent_node_stop";
      orchestrator: string;
      nodeId: string;
      executionId: string;
      status: NodeStatus;
      text?: string;
      error?: string;
      interruptIds?: string[];
    };

/**
 * Receives orchestrator events. A method signature on purpose: an EventPublisher stream handler
 * (which takes the handoff member of the union) can be passed as is.
 */
export type MultiAgentEventSink = (event: MultiAgentStreamEvent) => void;

/** One node handed control (Swarm: an agent called `handoff_to_agent`; Graph: results flow to the next nodes). */
export class HandoffEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "HandoffEvent";
  readonly fromNodeIds: readonly string[];
  readonly toNodeIds: readonly string[];
  /** The handing node's message (Swarm), or `undefined`. */
  readonly message: string | undefined;
  constructor(
    source: Orchestrator,
    invocationState: InvocationState,
    fromNodeIds: readonly string[],
    toNodeIds: readonly string[],
    message?: string,
  ) {
    super(source, invocationState);
    this.fromNodeIds = fromNodeIds;
    this.toNodeIds = toNodeIds;
    this.message = message;
  }
}

/** A node ran longer than `nodeTimeoutMs`, or the orchestration longer than `totalTimeoutMs`. */
export class MultiAgentTimeoutError extends KabooError {
  readonly code = "MULTIAGENT_TIMEOUT" as const;
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number) {
    super(`${what} timed out after ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** Options every orchestrator takes. */
export interface MultiAgentOptions {
  /** Used in events, interrupts and stream paths. */
  name: string;
  /** Hooks registered on the orchestrator's own registry. Default `[]`. */
  hooks?: HookProvider[];
  /** Per-node timeout in ms. Default: none. */
  nodeTimeoutMs?: number;
  /** Timeout of one invocation in ms. Default: none. */
  totalTimeoutMs?: number;
  /** Receives node start/stop and handoff events. Default: none. */
  onEvent?: MultiAgentEventSink;
}

/** Options of one orchestrator invocation. */
export interface MultiAgentInvokeOptions {
  /** Per-run data, handed to every hook event and (as a shallow copy) to every node. Default `{}`. */
  invocationState?: InvocationState;
  /** Cancels the run: running nodes are aborted and the result is `cancelled`. */
  signal?: AbortSignal;
}
