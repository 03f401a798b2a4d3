/**
 * Graph: nodes (agents, nested orchestrators, code) joined by conditional edges; ready nodes
 * run in parallel; cycles only under a node-execution bound.
 *
 * @module
 */
import type { InvocationState } from "../agent/events.js";
import type { InterruptResponse } from "../agent/interrupts/interrupt.js";
import {
  MultiAgentBase,
  type MultiAgentInvokeOptions,
  type MultiAgentNode,
  type MultiAgentOptions,
  type PausedNode,
} from "./base.js";
import { freshGraphRun, graphInput, graphView, loadGraphRun, type GraphRun } from "./graph-run.js";
import { fires, readyNodes, validateGraph, type GraphEdge } from "./graph-schedule.js";
import { HandoffEvent, MultiAgentTimeoutError, type MultiAgentResult } from "./types.js";
import { linkedAbort, type LinkedAbort } from "../agent/shared/abort.js";

export type { GraphEdge, GraphView } from "./graph-schedule.js";

/** Options of {@link Graph}. */
export interface GraphOptions extends MultiAgentOptions {
  nodes: Record<string, MultiAgentNode>;
  edges?: GraphEdge[];
  /** Nodes that start the graph. Default: the nodes without incoming edges. */
  entryPoints?: string[];
  /** Bound on node executions per invocation; required when the edges form a cycle. Default: unbounded. */
  maxNodeExecutions?: number;
}

/** The outcome of {@link Graph.invoke}. */
export type GraphResult = MultiAgentResult;

/** One execution of the graph in progress: its run record, the nodes running, and why it stops. */
interface Execution {
  run: GraphRun;
  invocationState: InvocationState;
  controller: LinkedAbort;
  running: Map<string, Promise<void>>;
  /** A node paused: no new node starts, the running ones finish. */
  pausing: boolean;
  /** Why the graph stopped early (a limit, a deadlock, the timeout). */
  reason: string | undefined;
  timedOut: boolean;
}

/**
 * A graph of nodes. **When a node runs:** it has an incoming edge whose source completed after
 * the node last started and whose `condition` (if any) holds on the state so far, and none of
 * its predecessors can still run first (is running, or is reachable from a running or ready
 * node without passing through it). So joins wait for every branch that can still arrive,
 * branches whose conditions fail do not block, and a feedback edge re-runs its target.
 * Ready nodes run in parallel. A failed node's edges never fire; other branches go on.
 *
 * **Status:** `interrupted` (a node or a BeforeNodeCall hook paused; resume with
 * `invoke([{ interruptResponse }])`), else `failed` (a node failed, `maxNodeExecutions` was
 * reached, `totalTimeoutMs` passed, or nodes wait on each other forever — `reason` says which),
 * else `cancelled` (a hook cancelled a node, or the signal aborted), else `completed`.
 *
 * @example
 * ```ts
 * const graph = new Graph({
 *   name: "report",
 *   nodes: { research, fact_check: checker, write: writer },
 *   edges: [{ from: "research", to: "fact_check", condition: (s) => s.results.research?.status === "completed" }, { from: "research", to: "write" }, { from: "fact_check", to: "write" }],
 * });
 * const result = await graph.invoke("Q3 summary");
 * ```
 */
export class Graph extends MultiAgentBase {
  readonly type = "graph";
  readonly nodes: Readonly<Record<string, MultiAgentNode>>;
  readonly edges: readonly GraphEdge[];
  readonly entryPoints: readonly string[];
  readonly maxNodeExecutions: number;

  /**
   * @param options - See {@link GraphOptions}: `edges = []`, `entryPoints` = nodes without incoming
   *   edges, `maxNodeExecutions` = unbounded (required with cycles), `hooks = []`, no timeouts.
   * @throws UserError for an unknown node in an edge or entry point, no entry point, or a cycle without a bound.
   */
  constructor(options: GraphOptions) {
    super(options);
    this.nodes = { ...options.nodes };
    this.edges = [...(options.edges ?? [])];
    const checked = validateGraph(this.nodes, this.edges, options.entryPoints, options.maxNodeExecutions);
    this.entryPoints = checked.entryPoints;
    this.maxNodeExecutions = options.maxNodeExecutions ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Runs the graph on `task`, or resumes it with interrupt answers.
   * @param input - The task, or `[{ interruptResponse: { interruptId, response } }]`.
   * @param options - `invocationState` (default `{}`), `signal`.
   * @returns The {@link GraphResult}.
   */
  async invoke(input: string | InterruptResponse[], options: MultiAgentInvokeOptions = {}): Promise<GraphResult> {
    return this.invokeWith(input, options, ({ resuming, task, invocationState, started }) =>
      this.#execute(
        resuming ? loadGraphRun(this.interruptState.context, this.nodes) : freshGraphRun(task, this.entryPoints),
        invocationState,
        options.signal,
        started,
      ),
    );
  }

  async #execute(
    run: GraphRun,
    invocationState: InvocationState,
    outer: AbortSignal | undefined,
    started: number,
  ): Promise<GraphResult> {
    const ex: Execution = {
      run,
      invocationState,
      controller: linkedAbort(outer),
      running: new Map(),
      pausing: false,
      reason: undefined,
      timedOut: false,
    };
    const limit = this.totalTimeoutMs;
    const timer =
      limit === undefined
        ? undefined
        : setTimeout(() => {
            ex.timedOut = true;
            ex.controller.abort(new MultiAgentTimeoutError(`Graph "${this.name}"`, limit));
          }, limit);
    const toResume = Object.entries(run.paused);
    run.paused = {};
    try {
      await this.#drive(ex, toResume);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      ex.controller.unlink();
    }
    if (ex.timedOut) ex.reason = `The graph timed out after ${this.totalTimeoutMs} ms.`;
    return this.#result(run, ex.reason, ex.controller.signal.aborted && !ex.timedOut, started);
  }

  /** Resumes the paused nodes, then starts nodes as they become ready until none runs. */
  async #drive(ex: Execution, toResume: [string, PausedNode][]): Promise<void> {
    const { signal } = ex.controller;
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    for (const [id, paused] of toResume) this.#start(ex, id, paused);
    for (;;) {
      if (!ex.pausing && !signal.aborted && ex.reason === undefined) this.#startReady(ex);
      if (ex.running.size === 0) return;
      await Promise.race([...ex.running.values(), aborted]);
      if (signal.aborted) {
        // Nodes race the same signal, so they settle promptly; wait for their records.
        await Promise.allSettled([...ex.running.values()]);
        return;
      }
    }
  }

  /** Starts every ready node, within `maxNodeExecutions`; notes why the graph cannot go on, if so. */
  #startReady(ex: Execution): void {
    const view = graphView(ex.run, ex.invocationState);
    const { ready, waiting } = readyNodes(this, ex.run, view, new Set(ex.running.keys()));
    for (const id of ready) {
      if (ex.run.executions >= this.maxNodeExecutions) {
        ex.reason = `maxNodeExecutions (${this.maxNodeExecutions}) reached; node "${id}" did not run.`;
        break;
      }
      this.#start(ex, id);
    }
    if (ex.running.size === 0 && waiting.length > 0 && ex.reason === undefined) {
      ex.reason = `The graph cannot finish: nodes ${waiting.map((w) => `"${w}"`).join(", ")} wait on each other.`;
    }
  }

  /** Starts one node (fresh, or resuming its pause) and records it among the running ones. */
  #start(ex: Execution, id: string, resume?: PausedNode): void {
    const { run } = ex;
    const view = graphView(run, ex.invocationState);
    const fromIds = resume ? [] : this.edges.filter((e) => e.to === id && fires(e, run, view)).map((e) => e.from);
    if (!resume) {
      run.executions++;
      run.counts[id] = (run.counts[id] ?? 0) + 1;
      run.executionOrder.push(id);
    }
    run.starts[id] = run.seq++;
    run.entryPending = run.entryPending.filter((e) => e !== id);
    const input = resume?.input ?? graphInput(run, fromIds);
    const p = this.#runNode(ex, id, input, fromIds, resume).finally(() => ex.running.delete(id));
    ex.running.set(id, p);
  }

  /** Hands off to a node, runs it and records its result (or its pause). */
  async #runNode(
    ex: Execution,
    id: string,
    input: string,
    fromIds: string[],
    resume: PausedNode | undefined,
  ): Promise<void> {
    const { run, invocationState } = ex;
    if (fromIds.length) {
      await this.hooks.invoke(new HandoffEvent(this, invocationState, fromIds, [id]));
      this.onEvent?.({ type: "multiagent_handoff", fromNodeIds: fromIds, toNodeIds: [id] });
    }
    const step = await this.executeNode({
      nodeId: id,
      node: this.nodes[id] as MultiAgentNode,
      input,
      invocationState,
      signal: ex.controller.signal,
      executionId: this.executionId(invocationState, id, run.counts[id] ?? 1),
      ...(resume ? { resume } : {}),
    });
    run.results[id] = step.result;
    if (step.kind === "paused") {
      run.paused[id] = step.paused;
      ex.pausing = true;
    } else {
      if (step.cancelled) run.cancelledNodes.push(id);
      if (step.result.status === "completed") run.completions[id] = run.seq++;
    }
  }

  #result(run: GraphRun, reason: string | undefined, cancelled: boolean, started: number): GraphResult {
    const state = this.interruptState;
    const paused = Object.keys(run.paused).length > 0;
    if (paused) {
      state.activated = true;
      state.context = JSON.parse(JSON.stringify(run)) as typeof state.context;
    } else state.clear();
    const failed =
      reason !== undefined ||
      Object.entries(run.results).some(([id, r]) => r.status === "failed" && !run.cancelledNodes.includes(id));
    const status = paused
      ? "interrupted"
      : failed
        ? "failed"
        : cancelled || run.cancelledNodes.length
          ? "cancelled"
          : "completed";
    const out: GraphResult = {
      status,
      results: structuredClone(run.results),
      executionOrder: [...run.executionOrder],
      cancelledNodes: [...run.cancelledNodes],
      interrupts: paused ? state.pending() : [],
      durationMs: performance.now() - started,
    };
    if (reason !== undefined) out.reason = reason;
    return out;
  }
}
