/**
 * What Graph and Swarm share: the orchestrator's registry and interrupt state, resume checks,
 * and running one node with its hook events, timeout and nested interrupts.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import type { Agent } from "../agent/agent.js";
import {
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  MultiAgentInitializedEvent,
  type InvocationState,
  type Orchestrator,
} from "../agent/events.js";
import { HookRegistry } from "../agent/hooks.js";
import {
  InterruptSignal,
  InterruptState,
  interruptResponsesSchema,
  type Interrupt,
  type InterruptResponse,
} from "../agent/interrupts/interrupt.js";
import {
  InvalidInterruptResponseError,
  PendingInterruptsError,
  UnknownInterruptIdError,
  UserError,
  describe,
} from "../errors.js";
import type {
  MultiAgentEventSink,
  MultiAgentInvokeOptions,
  MultiAgentOptions,
  MultiAgentResult,
  NodeExecutor,
  NodeResult,
} from "./types.js";
import { raceAbort } from "../agent/shared/abort-wait.js";
import { nodeInterruptId } from "../agent/interrupts/interrupt-id.js";
import { runContext } from "../agent/run-context.js";
import {
  collectNodeInterrupts,
  dropNodeInterrupts,
  nodeAnswers,
  nodeSignal,
  parentIds,
  runNode,
  type PausedNode,
} from "./node-run.js";

/** One node call of an orchestrator (see `executeNode`). */
interface NodeCall {
  nodeId: string;
  node: MultiAgentNode;
  input: string;
  executionId: string;
  invocationState: InvocationState;
  signal: AbortSignal;
  /** The paused execution this call resumes, if any. */
  resume?: PausedNode;
}

export { STREAM_PATH_KEY } from "../agent/run-context.js";
export { orchestrationText, pausedNodeSchema } from "./node-run.js";
export type { MultiAgentInvokeOptions, MultiAgentOptions } from "./types.js";
export type { PausedNode } from "./node-run.js";

/** What a Graph node may be. */
export type MultiAgentNode = Agent | MultiAgentBase | NodeExecutor;

/** What running one node gave. */
export type NodeStep =
  | { kind: "done"; result: NodeResult; cancelled: boolean }
  | { kind: "paused"; paused: PausedNode; result: NodeResult };

/** Base of Graph and Swarm. */
export abstract class MultiAgentBase implements Orchestrator {
  readonly name: string;
  /** The orchestrator's own hook registry (node, handoff and multi-agent events). */
  readonly hooks: HookRegistry = new HookRegistry();
  /** Interrupts of a paused orchestration; its `context` holds the run's progress (JSON). */
  interruptState: InterruptState = new InterruptState();
  /** `graph` or `swarm` (EventPublisher's `multiagent_type`). */
  abstract readonly type: string;
  protected readonly nodeTimeoutMs: number | undefined;
  protected readonly totalTimeoutMs: number | undefined;
  protected readonly onEvent: MultiAgentEventSink | undefined;
  #initialized = false;
  #running = false;

  constructor(options: MultiAgentOptions) {
    if (typeof options.name !== "string" || !options.name)
      throw new UserError("An orchestrator needs a non-empty name.");
    for (const [k, v] of [
      ["nodeTimeoutMs", options.nodeTimeoutMs],
      ["totalTimeoutMs", options.totalTimeoutMs],
    ] as const) {
      if (v !== undefined && !(v > 0)) throw new UserError(`${k} must be a positive number of milliseconds, got ${v}.`);
    }
    this.name = options.name;
    this.nodeTimeoutMs = options.nodeTimeoutMs;
    this.totalTimeoutMs = options.totalTimeoutMs;
    this.onEvent = options.onEvent;
    for (const h of options.hooks ?? []) this.hooks.addHook(h);
  }

  /**
   * Runs the orchestration, or resumes a paused one when `input` is a list of interrupt answers.
   * @throws UnknownInterruptIdError, PartialResumeError, InvalidInterruptResponseError, PendingInterruptsError
   *   for resume mistakes; UserError when already running.
   */
  abstract invoke(input: string | InterruptResponse[], options?: MultiAgentInvokeOptions): Promise<MultiAgentResult>;

  /** Validates the input against the interrupt state; fires MultiAgentInitializedEvent once. */
  protected async begin(
    input: string | InterruptResponse[],
    invocationState: InvocationState,
  ): Promise<{ resuming: boolean; task: string }> {
    if (this.#running) throw new UserError(`Orchestrator "${this.name}" is already running.`);
    const state = this.interruptState;
    let resuming = false;
    if (Array.isArray(input)) {
      const parsed = interruptResponsesSchema.safeParse(input);
      if (!parsed.success)
        throw new InvalidInterruptResponseError(
          "(resume)",
          `malformed resume payload: ${z.prettifyError(parsed.error)}`,
        );
      if (!state.activated) throw new UnknownInterruptIdError(parsed.data[0]?.interruptResponse.interruptId ?? "", []);
      state.resume(parsed.data);
      resuming = true;
    } else {
      if (typeof input !== "string") throw new UserError("An orchestrator's task must be a string.");
      if (state.activated) throw new PendingInterruptsError(state.pendingIds());
    }
    this.#running = true;
    try {
      if (!this.#initialized) {
        this.#initialized = true;
        await this.hooks.invoke(new MultiAgentInitializedEvent(this, invocationState));
      }
    } catch (error) {
      this.#running = false;
      throw error;
    }
    return { resuming, task: typeof input === "string" ? input : "" };
  }

  /**
   * The frame of an invocation shared by every orchestrator: begin (validate a resume),
   * BeforeMultiAgentInvocation, the run, then AfterMultiAgentInvocation on any outcome, then end.
   */
  protected async invokeWith<R>(
    input: string | InterruptResponse[],
    options: { invocationState?: InvocationState | undefined },
    run: (step: { resuming: boolean; task: string; invocationState: InvocationState; started: number }) => Promise<R>,
  ): Promise<R> {
    const invocationState = options.invocationState ?? {};
    const { resuming, task } = await this.begin(input, invocationState);
    const started = performance.now();
    let result: R | undefined;
    let failure: unknown;
    try {
      await this.hooks.invoke(new BeforeMultiAgentInvocationEvent(this, invocationState));
      result = await run({ resuming, task, invocationState, started });
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      try {
        await this.hooks.invoke(new AfterMultiAgentInvocationEvent(this, invocationState, result, failure));
      } finally {
        this.end();
      }
    }
  }

  /** Marks the invocation finished (call in `finally`). */
  protected end(): void {
    this.#running = false;
  }

  /** The stream path of a node execution: `<parent path>.<orchestrator>.<node>` plus `#N` from the 2nd run. */
  protected executionId(invocationState: InvocationState, nodeId: string, count: number): string {
    const parent = runContext.streamPath.find(invocationState);
    const base = parent ? `${parent}.${this.name}` : this.name;
    return `${base}.${nodeId}${count > 1 ? `#${count}` : ""}`;
  }

  /** Records a paused node's interrupts on the orchestrator as `node:<nodeId>:<innerId>`. */
  protected collectNodeInterrupts(nodeId: string, inner: readonly Interrupt[]): void {
    collectNodeInterrupts(this.interruptState, nodeId, inner);
  }

  /** Answers for a node's own interrupts, mapped back to the node's ids. */
  protected answersFor(nodeId: string): InterruptResponse[] {
    return nodeAnswers(this.interruptState, nodeId);
  }

  /** Forgets the interrupts of a node that finished. */
  protected dropNodeInterrupts(nodeId: string): void {
    dropNodeInterrupts(this.interruptState, nodeId);
  }

  /**
   * Runs one node: BeforeNodeCall (cancel / interrupt) → the node, raced against its timeout and
   * the run's signal → AfterNodeCall. Never throws for a node's failure: it is the result.
   */
  protected async executeNode(o: NodeCall): Promise<NodeStep> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const stopped = await this.#beforeNode(o, elapsed);
    if (stopped) return stopped;
    this.onEvent?.({
      type: "multiagent_node_start",
      orchestrator: this.name,
      nodeId: o.nodeId,
      executionId: o.executionId,
      ...parentIds(o.invocationState),
    });
    const { signal, dispose } = nodeSignal(o.signal, o.nodeId, this.nodeTimeoutMs);
    try {
      return await this.#runNode(o, signal, elapsed);
    } catch (error) {
      const reason = signal.aborted ? (signal.reason ?? error) : error;
      return this.#finish(o, { status: "failed", error: describe(reason), durationMs: elapsed() }, reason, false);
    } finally {
      dispose();
    }
  }

  /** BeforeNodeCall: the step when a hook paused, failed or cancelled the node; `undefined`: run it. */
  async #beforeNode(o: NodeCall, elapsed: () => number): Promise<NodeStep | undefined> {
    const before = new BeforeNodeCallEvent(this, o.invocationState, o.nodeId);
    try {
      await this.hooks.invoke(before);
    } catch (error) {
      if (error instanceof InterruptSignal) {
        return {
          kind: "paused",
          paused: { input: o.input, started: false, state: null },
          result: { status: "interrupted", durationMs: elapsed() },
        };
      }
      return this.#finish(o, { status: "failed", error: describe(error), durationMs: elapsed() }, error, false);
    }
    if (before.cancelNode === false) return undefined;
    const message =
      typeof before.cancelNode === "string" && before.cancelNode
        ? before.cancelNode
        : `Node "${o.nodeId}" was cancelled.`;
    return this.#finish(o, { status: "failed", error: message, durationMs: elapsed() }, new Error(message), true);
  }

  /** The node itself, raced against its signal: its pause (interrupts collected) or its result. */
  async #runNode(o: NodeCall, signal: AbortSignal, elapsed: () => number): Promise<NodeStep> {
    const run = runNode({
      node: o.node,
      nodeId: o.nodeId,
      input: o.input,
      invocationState: runContext.streamPath.with(o.invocationState, o.executionId),
      signal,
      resume: o.resume?.started ? o.resume : undefined,
      answers: this.answersFor(o.nodeId),
    });
    const out = await raceAbort(run, signal);
    if (out.kind !== "paused")
      return this.#finish(o, { status: "completed", result: out.output, durationMs: elapsed() }, undefined, false);
    this.collectNodeInterrupts(o.nodeId, out.interrupts);
    this.onEvent?.({
      type: "multiagent_node_stop",
      orchestrator: this.name,
      nodeId: o.nodeId,
      executionId: o.executionId,
      status: "interrupted",
      interruptIds: out.interrupts.map((i) => nodeInterruptId(o.nodeId, i.id)),
    });
    const result: NodeResult = { status: "interrupted", durationMs: elapsed() };
    return { kind: "paused", paused: { input: o.input, started: true, state: out.state }, result };
  }

  async #finish(
    o: { nodeId: string; executionId: string; invocationState: InvocationState },
    result: NodeResult,
    error: unknown,
    cancelled: boolean,
  ): Promise<NodeStep> {
    this.dropNodeInterrupts(o.nodeId);
    const stop: { text?: string; error?: string } = {};
    if (result.result) stop.text = result.result.text;
    if (result.error !== undefined) stop.error = result.error;
    this.onEvent?.({
      type: "multiagent_node_stop",
      orchestrator: this.name,
      nodeId: o.nodeId,
      executionId: o.executionId,
      status: cancelled ? "cancelled" : result.status,
      ...stop,
    });
    try {
      await this.hooks.invoke(new AfterNodeCallEvent(this, o.invocationState, o.nodeId, result, error));
    } catch (e) {
      // An After hook cannot undo the node; its failure is recorded on the node, not lost.
      if (!(e instanceof InterruptSignal)) result = { ...result, status: "failed", error: describe(e) };
    }
    return { kind: "done", result, cancelled };
  }
}
