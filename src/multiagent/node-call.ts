/**
 * One node call of an orchestrator: BeforeNodeCall (cancel / interrupt), the node raced against its
 * timeout and the run's signal, its interrupts collected when it paused, the node events, and
 * AfterNodeCall. A node's failure is its result, never a throw.
 *
 * @module
 */
import { InterruptSignal, type Interrupt, type InterruptResponse } from "../agent/interrupts/interrupt.js";
import { AfterNodeCallEvent, BeforeNodeCallEvent, type InvocationState } from "../agent/events.js";
import { nodeInterruptId } from "../agent/interrupts/interrupt-id.js";
import { runContext } from "../agent/run-context.js";
import { raceAbort } from "../agent/shared/abort-wait.js";
import { describe } from "../errors.js";
import type { MultiAgentBase, MultiAgentNode } from "./base.js";
import { nodeSignal, parentIds, runNode, type PausedNode } from "./node-run.js";
import type { MultiAgentEventSink, NodeResult } from "./types.js";

/** One node call of an orchestrator (see `MultiAgentBase.executeNode`). */
export interface NodeCall {
  nodeId: string;
  node: MultiAgentNode;
  input: string;
  executionId: string;
  invocationState: InvocationState;
  signal: AbortSignal;
  /** The paused execution this call resumes, if any. */
  resume?: PausedNode;
}

/** What running one node gave. */
export type NodeStep =
  | { kind: "done"; result: NodeResult; cancelled: boolean }
  | { kind: "paused"; paused: PausedNode; result: NodeResult };

/**
 * What a node call needs of its orchestrator: the orchestrator itself (its name, its hooks, the
 * events' source), its options, and its (protected, so overridable) interrupt bookkeeping.
 */
export interface NodeHost {
  readonly orchestrator: MultiAgentBase;
  readonly nodeTimeoutMs: number | undefined;
  readonly onEvent: MultiAgentEventSink | undefined;
  answersFor(nodeId: string): InterruptResponse[];
  collectNodeInterrupts(nodeId: string, inner: readonly Interrupt[]): void;
  dropNodeInterrupts(nodeId: string): void;
}

/**
 * Runs one node: BeforeNodeCall (cancel / interrupt) → the node, raced against its timeout and
 * the run's signal → AfterNodeCall. Never throws for a node's failure: it is the result.
 * @param h - The orchestrator running it.
 * @param o - The call.
 * @returns The node's step: done (with its result) or paused.
 */
export async function callNode(h: NodeHost, o: NodeCall): Promise<NodeStep> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const stopped = await beforeNode(h, o, elapsed);
  if (stopped) return stopped;
  h.onEvent?.({
    type: "multiagent_node_start",
    orchestrator: h.orchestrator.name,
    nodeId: o.nodeId,
    executionId: o.executionId,
    ...parentIds(o.invocationState),
  });
  const { signal, dispose } = nodeSignal(o.signal, o.nodeId, h.nodeTimeoutMs);
  try {
    return await runOne(h, o, signal, elapsed);
  } catch (error) {
    const reason = signal.aborted ? (signal.reason ?? error) : error;
    return finish(h, o, { status: "failed", error: describe(reason), durationMs: elapsed() }, reason, false);
  } finally {
    dispose();
  }
}

/** BeforeNodeCall: the step when a hook paused, failed or cancelled the node; `undefined`: run it. */
async function beforeNode(h: NodeHost, o: NodeCall, elapsed: () => number): Promise<NodeStep | undefined> {
  const before = new BeforeNodeCallEvent(h.orchestrator, o.invocationState, o.nodeId);
  try {
    await h.orchestrator.hooks.invoke(before);
  } catch (error) {
    if (error instanceof InterruptSignal) {
      return {
        kind: "paused",
        paused: { input: o.input, started: false, state: null },
        result: { status: "interrupted", durationMs: elapsed() },
      };
    }
    return finish(h, o, { status: "failed", error: describe(error), durationMs: elapsed() }, error, false);
  }
  if (before.cancelNode === false) return undefined;
  const message =
    typeof before.cancelNode === "string" && before.cancelNode
      ? before.cancelNode
      : `Node "${o.nodeId}" was cancelled.`;
  return finish(h, o, { status: "failed", error: message, durationMs: elapsed() }, new Error(message), true);
}

/** The node itself, raced against its signal: its pause (interrupts collected) or its result. */
async function runOne(h: NodeHost, o: NodeCall, signal: AbortSignal, elapsed: () => number): Promise<NodeStep> {
  const run = runNode({
    node: o.node,
    nodeId: o.nodeId,
    input: o.input,
    invocationState: runContext.streamPath.with(o.invocationState, o.executionId),
    signal,
    resume: o.resume?.started ? o.resume : undefined,
    answers: h.answersFor(o.nodeId),
  });
  const out = await raceAbort(run, signal);
  if (out.kind !== "paused")
    return finish(h, o, { status: "completed", result: out.output, durationMs: elapsed() }, undefined, false);
  h.collectNodeInterrupts(o.nodeId, out.interrupts);
  h.onEvent?.({
    type: "multiagent_node_stop",
    orchestrator: h.orchestrator.name,
    nodeId: o.nodeId,
    executionId: o.executionId,
    status: "interrupted",
    interruptIds: out.interrupts.map((i) => nodeInterruptId(o.nodeId, i.id)),
  });
  const result: NodeResult = { status: "interrupted", durationMs: elapsed() };
  return { kind: "paused", paused: { input: o.input, started: true, state: out.state }, result };
}

/** Ends a node: its interrupts dropped, its stop event, AfterNodeCall (whose failure marks the node failed). */
async function finish(
  h: NodeHost,
  o: { nodeId: string; executionId: string; invocationState: InvocationState },
  result: NodeResult,
  error: unknown,
  cancelled: boolean,
): Promise<NodeStep> {
  h.dropNodeInterrupts(o.nodeId);
  const stop: { text?: string; error?: string } = {};
  if (result.result) stop.text = result.result.text;
  if (result.error !== undefined) stop.error = result.error;
  h.onEvent?.({
    type: "multiagent_node_stop",
    orchestrator: h.orchestrator.name,
    nodeId: o.nodeId,
    executionId: o.executionId,
    status: cancelled ? "cancelled" : result.status,
    ...stop,
  });
  try {
    await h.orchestrator.hooks.invoke(
      new AfterNodeCallEvent(h.orchestrator, o.invocationState, o.nodeId, result, error),
    );
  } catch (e) {
    // An After hook cannot undo the node; its failure is recorded on the node, not lost.
    if (!(e instanceof InterruptSignal)) result = { ...result, status: "failed", error: describe(e) };
  }
  return { kind: "done", result, cancelled };
}
