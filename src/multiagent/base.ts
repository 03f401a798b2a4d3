/**
 * What Graph and Swarm share: the orchestrator's registry and interrupt state, resume checks,
 * and running one node with its hook events, timeout and nested interrupts (`./node-call.ts`).
 *
 * @module
 */
import * as z from "zod/v4/mini";
import type { Agent } from "../agent/agent.js";
import {
  AfterMultiAgentInvocationEvent,
  BeforeMultiAgentInvocationEvent,
  MultiAgentInitializedEvent,
  type InvocationState,
  type Orchestrator,
} from "../agent/events.js";
import { HookRegistry } from "../agent/hooks.js";
import {
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
} from "../errors.js";
import type {
  MultiAgentEventSink,
  MultiAgentInvokeOptions,
  MultiAgentOptions,
  MultiAgentResult,
  NodeExecutor,
} from "./types.js";
import { runContext } from "../agent/run-context.js";
import { callNode, type NodeCall, type NodeHost, type NodeStep } from "./node-call.js";
import { collectNodeInterrupts, dropNodeInterrupts, nodeAnswers } from "./node-run.js";

export { STREAM_PATH_KEY } from "../agent/run-context.js";
export { orchestrationText, pausedNodeSchema } from "./node-run.js";
export type { MultiAgentInvokeOptions, MultiAgentOptions } from "./types.js";
export type { PausedNode } from "./node-run.js";
export type { NodeStep } from "./node-call.js";

/** What a Graph node may be. */
export type MultiAgentNode = Agent | MultiAgentBase | NodeExecutor;

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
  #nodeHost: NodeHost | undefined;

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
  protected executeNode(o: NodeCall): Promise<NodeStep> {
    this.#nodeHost ??= {
      orchestrator: this,
      nodeTimeoutMs: this.nodeTimeoutMs,
      onEvent: this.onEvent,
      answersFor: (nodeId) => this.answersFor(nodeId),
      collectNodeInterrupts: (nodeId, inner) => this.collectNodeInterrupts(nodeId, inner),
      dropNodeInterrupts: (nodeId) => this.dropNodeInterrupts(nodeId),
    };
    return callNode(this.#nodeHost, o);
  }
}
