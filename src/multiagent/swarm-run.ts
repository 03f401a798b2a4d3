/**
 * A swarm invocation's progress, kept (as JSON) in the swarm's interrupt context while it is
 * paused, and the limits that stop it.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject, recordOf } from "../agent/shared/lean-schemas.js";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import { InvalidStateError } from "../errors.js";
import { pausedNodeSchema, type PausedNode } from "./node-run.js";
import type { NodeResult } from "./types.js";
import { positiveIntegerOption } from "../options.js";

/** One handoff. */
export interface Handoff {
  from: string;
  to: string;
  message: string;
}

const handoffSchema = z.object({ from: z.string(), to: z.string(), message: z.string() });
const runSchema = z.object({
  kind: z.literal("swarm"),
  task: z.string(),
  current: z.string(),
  input: z.string(),
  iterations: z.int(),
  handoffs: z.array(handoffSchema),
  results: recordOf(
    looseObject({ status: z.literal(["completed", "failed", "interrupted", "cancelled"]), durationMs: z.number() }),
  ),
  executionOrder: z.array(z.string()),
  cancelledNodes: z.array(z.string()),
  sharedContext: recordOf(jsonValueSchema),
  paused: z.nullable(pausedNodeSchema),
});
/** A swarm invocation's progress. */
export type SwarmRun = Omit<z.infer<typeof runSchema>, "results" | "paused"> & {
  results: Record<string, NodeResult>;
  paused: PausedNode | null;
};
/** A fresh invocation on `task`, starting at `entry`. */
export function freshSwarmRun(task: string, entry: string): SwarmRun {
  return {
    kind: "swarm",
    task,
    current: entry,
    input: task,
    iterations: 0,
    handoffs: [],
    results: {},
    executionOrder: [],
    cancelledNodes: [],
    sharedContext: {},
    paused: null,
  };
}

/**
 * The paused invocation kept in the swarm's interrupt context.
 * @throws InvalidStateError when it is malformed or names an agent the swarm does not have.
 */
export function loadSwarmRun(context: unknown, agents: ReadonlyMap<string, unknown>): SwarmRun {
  const parsed = runSchema.safeParse(context);
  if (!parsed.success || !agents.has(parsed.data.current)) {
    throw new InvalidStateError(
      `The paused swarm's context is malformed: ${parsed.success ? `unknown agent "${parsed.data.current}"` : z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data as unknown as SwarmRun;
}

/** How many handoffs at the end of the list stay within one pair of agents. */
export function pingPong(handoffs: readonly Handoff[]): number {
  const last = handoffs.at(-1);
  if (!last) return 0;
  const pair = new Set([last.from, last.to]);
  let n = 0;
  for (let i = handoffs.length - 1; i >= 0; i--) {
    const h = handoffs[i] as Handoff;
    if (!pair.has(h.from) || !pair.has(h.to)) break;
    n++;
  }
  return n;
}

/** A positive integer option, or its default. @throws UserError otherwise. */
export const limit = positiveIntegerOption;
