/**
 * Running one node of an orchestration (an Agent, a nested Graph or Swarm, or a plain executor)
 * and keeping its interrupts on the orchestrator under `node:<nodeId>:<innerId>`.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { Agent } from "../agent/agent.js";
import type { InvocationState } from "../agent/events.js";
import { InterruptState, type Interrupt, type InterruptResponse } from "../agent/interrupts/interrupt.js";
import { innerInterruptId, isNodeInterrupt, nodeInterruptId } from "../agent/interrupts/interrupt-id.js";
import { messageText, type JsonValue } from "../agent/messages/messages.js";
import { runContext } from "../agent/run-context.js";
import type { MultiAgentBase, MultiAgentNode } from "./base.js";
import { MultiAgentTimeoutError, type MultiAgentResult } from "./types.js";
import { linkedAbort } from "../agent/shared/abort.js";

/** A node's paused execution, kept (as JSON) in the orchestrator's interrupt context. */
export interface PausedNode {
  input: string;
  /** Whether the node itself ran (else a BeforeNodeCall hook paused before it started). */
  started: boolean;
  /** The node's own interrupt state (`toJSON()`), so a fresh node object can resume. */
  state: JsonValue | null;
}

/** Schema of {@link PausedNode} (its `state` is checked when it is restored). */
export const pausedNodeSchema = z.object({ input: z.string(), started: z.boolean(), state: z.unknown() });

/** The ids that tie a node to what spawned it: the parent path and the delegating tool call. */
export function parentIds(state: InvocationState): { parentExecutionId?: string; parentToolCallId?: string } {
  const out: { parentExecutionId?: string; parentToolCallId?: string } = {};
  const path = runContext.streamPath.find(state);
  if (path) out.parentExecutionId = path;
  const call = runContext.delegationId.find(state);
  if (call) out.parentToolCallId = call;
  return out;
}

/** One run of a node. */
export interface NodeRun {
  node: MultiAgentNode;
  nodeId: string;
  input: string;
  /** The node's own state (a shallow copy of the orchestrator's, with the node's stream path). */
  invocationState: InvocationState;
  signal: AbortSignal;
  /** The paused execution this run resumes inside the node, if any. */
  resume: PausedNode | undefined;
  /** The answers to the node's own interrupts (used when resuming). */
  answers: InterruptResponse[];
}

/** What running a node gave. */
export type RunOut =
  | { kind: "done"; output: { text: string; value?: JsonValue } }
  | { kind: "paused"; interrupts: Interrupt[]; state: JsonValue };

/**
 * Runs a node once, or resumes it with `answers` when `resume` says it paused inside.
 * @returns Its output, or its open interrupts and state when it paused.
 */
export async function runNode({
  node,
  nodeId,
  input,
  invocationState,
  signal,
  resume,
  answers,
}: NodeRun): Promise<RunOut> {
  if (!isExecutor(node)) {
    // A fresh node object (restored page) gets its paused state back from the orchestrator's context.
    if (resume && !node.interruptState.activated && resume.state !== null)
      node.interruptState = InterruptState.fromJSON(resume.state);
    const arg = resume ? answers : input;
    if (node instanceof Agent) {
      const r = await node.invoke(arg, { invocationState, signal });
      if (r.stopReason === "interrupt")
        return {
          kind: "paused",
          interrupts: r.interrupts,
          state: node.interruptState.toJSON() as unknown as JsonValue,
        };
      if (r.stopReason === "cancelled" && signal.aborted) throw signal.reason;
      return { kind: "done", output: { text: messageText(r.message) } };
    }
    const orchestrator: MultiAgentBase = node;
    const r = await orchestrator.invoke(arg, { invocationState, signal });
    if (r.status === "interrupted")
      return {
        kind: "paused",
        interrupts: r.interrupts,
        state: orchestrator.interruptState.toJSON() as unknown as JsonValue,
      };
    if (r.status !== "completed")
      throw new Error(r.reason ?? `Nested ${orchestrator.type} "${orchestrator.name}" ended ${r.status}.`);
    return {
      kind: "done",
      output: { text: orchestrationText(r), value: { status: r.status, executionOrder: r.executionOrder } },
    };
  }
  const value = await node.execute(input, { nodeId, invocationState, signal });
  if (typeof value === "string") return { kind: "done", output: { text: value } };
  const json = JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
  return { kind: "done", output: { text: JSON.stringify(json), value: json } };
}

/** The text of an orchestration: the outputs of its last-run nodes that nothing ran after. */
export function orchestrationText(r: MultiAgentResult): string {
  const last = r.executionOrder.at(-1);
  return last === undefined ? "" : (r.results[last]?.result?.text ?? "");
}

/** A plain function node (`{ execute }`), as opposed to an Agent or a nested orchestrator. */
function isExecutor(node: MultiAgentNode): node is Exclude<MultiAgentNode, Agent | MultiAgentBase> {
  return !(node instanceof Agent) && typeof (node as { execute?: unknown }).execute === "function";
}

/** Records a paused node's interrupts on its orchestrator's state as `node:<nodeId>:<innerId>`. */
export function collectNodeInterrupts(state: InterruptState, nodeId: string, inner: readonly Interrupt[]): void {
  for (const i of inner) {
    const id = nodeInterruptId(nodeId, i.id);
    const outer: Interrupt = { id, name: i.name };
    if (i.reason !== undefined) outer.reason = i.reason;
    state.interrupts.set(id, outer);
  }
}

/** Answers given to a node's interrupts on its orchestrator, under the node's own ids. */
export function nodeAnswers(state: InterruptState, nodeId: string): InterruptResponse[] {
  const out: InterruptResponse[] = [];
  for (const i of state.interrupts.values()) {
    const inner = innerInterruptId(i.id, nodeId);
    if (inner !== undefined && i.response !== undefined)
      out.push({ interruptResponse: { interruptId: inner, response: i.response } });
  }
  return out;
}

/** Forgets a finished node's interrupts (its hook's and its own). */
export function dropNodeInterrupts(state: InterruptState, nodeId: string): void {
  for (const id of [...state.interrupts.keys()]) if (isNodeInterrupt(id, nodeId)) state.interrupts.delete(id);
}

/**
 * The signal a node runs under: aborted with the run's, or after `timeoutMs` with a
 * {@link MultiAgentTimeoutError}. Call `dispose` when the node is done.
 */
export function nodeSignal(
  outer: AbortSignal,
  nodeId: string,
  timeoutMs: number | undefined,
): { signal: AbortSignal; dispose: () => void } {
  const controller = linkedAbort(outer);
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new MultiAgentTimeoutError(`Node "${nodeId}"`, timeoutMs)), timeoutMs);
  return {
    signal: controller.signal,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      controller.unlink();
    },
  };
}
