/**
 * The Graph's scheduling rule and definition checks, kept apart from its run loop.
 *
 * @module
 */
import type { InvocationState } from "../agent/events.js";
import { UserError } from "../errors.js";
import type { NodeResult } from "./types.js";

/** What an edge condition sees: the state so far (read it, do not change it). */
export interface GraphView {
  readonly task: string;
  readonly results: Readonly<Record<string, NodeResult>>;
  readonly executionOrder: readonly string[];
  readonly invocationState: InvocationState;
}

/** An edge: `to` may run once `from` completed and `condition` (default: always) holds. */
export interface GraphEdge {
  from: string;
  to: string;
  /** Decides on the state so far; a condition that throws counts as `false`. */
  condition?: (state: GraphView) => boolean;
}

/** What the scheduler reads from a run. */
export interface ScheduleState {
  starts: Record<string, number>;
  completions: Record<string, number>;
  entryPending: string[];
}

/**
 * Checks the definition.
 * @returns The entry points (given, or the nodes without incoming edges).
 * @throws UserError for unknown ids, no entry point, or a cycle without `maxNodeExecutions`.
 */
export function validateGraph(
  nodes: Readonly<Record<string, unknown>>,
  edges: readonly GraphEdge[],
  entryPoints: readonly string[] | undefined,
  maxNodeExecutions: number | undefined,
): { entryPoints: string[] } {
  const ids = Object.keys(nodes);
  if (ids.length === 0) throw new UserError("A graph needs at least one node.");
  for (const id of ids) {
    if (!/^[A-Za-z0-9_-]+$/.test(id))
      throw new UserError(
        `Node id "${id}" must use letters, digits, "_" and "-" (it becomes part of dot paths and interrupt ids).`,
      );
    if (nodes[id] === null || typeof nodes[id] !== "object")
      throw new UserError(`Node "${id}" must be an Agent, a Graph, a Swarm or a NodeExecutor.`);
  }
  for (const e of edges) {
    for (const end of [e.from, e.to])
      if (!(end in nodes)) throw new UserError(`Edge ${e.from} -> ${e.to} names unknown node "${end}".`);
    if (e.condition !== undefined && typeof e.condition !== "function")
      throw new UserError(`The condition of edge ${e.from} -> ${e.to} must be a function.`);
  }
  const entries = entryPoints ? [...entryPoints] : ids.filter((id) => !edges.some((e) => e.to === id));
  if (entries.length === 0)
    throw new UserError("The graph has no entry point (every node has an incoming edge); pass entryPoints.");
  for (const id of entries) if (!(id in nodes)) throw new UserError(`Entry point "${id}" is not a node.`);
  if (maxNodeExecutions !== undefined && !(Number.isInteger(maxNodeExecutions) && maxNodeExecutions > 0)) {
    throw new UserError(`maxNodeExecutions must be a positive integer, got ${maxNodeExecutions}.`);
  }
  if (maxNodeExecutions === undefined && hasCycle(ids, edges)) {
    throw new UserError("The graph has a cycle; set maxNodeExecutions to bound its feedback loops.");
  }
  return { entryPoints: entries };
}

function hasCycle(ids: readonly string[], edges: readonly GraphEdge[]): boolean {
  const state = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    if (state.get(id) === 1) return true;
    if (state.get(id) === 2) return false;
    state.set(id, 1);
    for (const e of edges) if (e.from === id && visit(e.to)) return true;
    state.set(id, 2);
    return false;
  };
  return ids.some((id) => visit(id));
}

/**
 * Which nodes may start now (see Graph's rule), and which would but wait on a predecessor.
 * @param graph - Nodes and edges.
 * @param run - Start / completion sequence numbers of the run.
 * @param view - What conditions see.
 * @param running - Nodes running now.
 */
export function readyNodes(
  graph: { nodes: Readonly<Record<string, unknown>>; edges: readonly GraphEdge[] },
  run: ScheduleState,
  view: GraphView,
  running: ReadonlySet<string>,
): { ready: string[]; waiting: string[] } {
  const candidates = Object.keys(graph.nodes).filter(
    (id) =>
      !running.has(id) &&
      (run.entryPending.includes(id) || graph.edges.some((e) => e.to === id && fires(e, run, view))),
  );
  const ready: string[] = [];
  const waiting: string[] = [];
  for (const id of candidates) {
    const sources = [...running, ...candidates].filter((s) => s !== id);
    const reach = reachable(sources, graph.edges, id);
    const blocked = graph.edges.some((e) => e.to === id && e.from !== id && reach.has(e.from));
    (blocked ? waiting : ready).push(id);
  }
  return { ready, waiting };
}

/** Whether `e` fires: its source completed after its target last started, and its condition holds. */
export function fires(e: GraphEdge, run: ScheduleState, view: GraphView): boolean {
  const done = run.completions[e.from];
  if (done === undefined || done < (run.starts[e.to] ?? -1)) return false;
  if (!e.condition) return true;
  try {
    return e.condition(view) === true;
  } catch {
    return false;
  }
}

/** Nodes reachable from `sources` (themselves included) without passing through `avoid`. */
function reachable(sources: readonly string[], edges: readonly GraphEdge[], avoid: string): Set<string> {
  const seen = new Set<string>();
  const stack = sources.filter((s) => s !== avoid);
  while (stack.length) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const e of edges) if (e.from === id && e.to !== avoid && !seen.has(e.to)) stack.push(e.to);
  }
  return seen;
}
