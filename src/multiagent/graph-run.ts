/**
 * A graph invocation's progress, kept (as JSON) in the graph's interrupt context while it is
 * paused: which nodes started and completed when, their results, the paused nodes; and what a
 * node is given (the task and its sources' texts) and sees of the run.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import type { InvocationState } from "../agent/events.js";
import { looseObject, recordOf } from "../agent/shared/lean-schemas.js";
import { InvalidStateError } from "../errors.js";
import type { GraphView } from "./graph-schedule.js";
import { pausedNodeSchema, type PausedNode } from "./node-run.js";
import type { NodeResult } from "./types.js";

const runSchema = z.object({
  kind: z.literal("graph"),
  task: z.string(),
  seq: z.int(),
  starts: recordOf(z.number()),
  completions: recordOf(z.number()),
  entryPending: z.array(z.string()),
  executions: z.int(),
  counts: recordOf(z.int()),
  results: recordOf(
    looseObject({ status: z.literal(["completed", "failed", "interrupted", "cancelled"]), durationMs: z.number() }),
  ),
  executionOrder: z.array(z.string()),
  cancelledNodes: z.array(z.string()),
  paused: recordOf(pausedNodeSchema),
});

/** A graph invocation's progress. */
export type GraphRun = Omit<z.infer<typeof runSchema>, "results" | "paused"> & {
  results: Record<string, NodeResult>;
  paused: Record<string, PausedNode>;
};

/** A fresh invocation on `task`, its entry points pending. */
export function freshGraphRun(task: string, entryPoints: readonly string[]): GraphRun {
  return {
    kind: "graph",
    task,
    seq: 0,
    starts: {},
    completions: {},
    entryPending: [...entryPoints],
    executions: 0,
    counts: {},
    results: {},
    executionOrder: [],
    cancelledNodes: [],
    paused: {},
  };
}

/**
 * The paused invocation kept in the graph's interrupt context.
 * @throws InvalidStateError when it is malformed or names a node the graph does not have.
 */
export function loadGraphRun(context: unknown, nodes: Readonly<Record<string, unknown>>): GraphRun {
  const parsed = runSchema.safeParse(context);
  if (!parsed.success)
    throw new InvalidStateError(`The paused graph's context is malformed: ${z.prettifyError(parsed.error)}`);
  for (const id of Object.keys(parsed.data.paused))
    if (!(id in nodes)) throw new InvalidStateError(`The paused graph names unknown node "${id}".`);
  return parsed.data as unknown as GraphRun;
}

/** What edge conditions see of the run. */
export function graphView(run: GraphRun, invocationState: InvocationState): GraphView {
  return { task: run.task, results: run.results, executionOrder: run.executionOrder, invocationState };
}

/** A node's input: the task, then the text of each source node whose edge fired. */
export function graphInput(run: GraphRun, fromIds: readonly string[]): string {
  const parts = fromIds.flatMap((from) => {
    const text = run.results[from]?.result?.text;
    return text === undefined ? [] : [`[${from}]\n${text}`];
  });
  return parts.length ? `${run.task}\n\nInputs from earlier nodes:\n\n${parts.join("\n\n")}` : run.task;
}
