/**
 * Hook events: what the runner announces at each step, with the fields a hook
 * may write to steer it (`cancel`, `selectedTool`, `retry`, `result`, …).
 *
 * Every event carries `agent` and `invocationState`; `toJSON()` leaves both out.
 * `After*` events run their callbacks in reverse registration order, so a hook
 * registered first wraps the others (its "after" runs last).
 *
 * @module
 */
import { nodeHookInterruptId, toolHookInterruptId } from "./interrupts/interrupt-id.js";
import type { Agent } from "./agent.js";
import type { AgentResult } from "./result.js";
import type { InterruptRequest, InterruptState } from "./interrupts/interrupt.js";
import type { JsonValue, Message, ToolResultBlock, ToolUseBlock } from "./messages/messages.js";
import type { ModelStopReason, Usage } from "./model.js";
import type { AgentTool } from "./tools/tools.js";

/** Per-invocation data handed to every event of one run; never shared between runs. */
export type InvocationState = Record<string, unknown>;

/** What a multi-agent orchestrator exposes to its events. */
export interface Orchestrator {
  readonly name: string;
  /** `graph`, `swarm`, … (class names do not survive minification). */
  readonly type?: string;
  readonly interruptState: InterruptState;
}

/** Base of every hook event. */
export abstract class HookEvent<S = Agent> {
  /** The event's type name (stable under minification). */
  static readonly eventType: string = "HookEvent";
  /** Whether callbacks run in reverse registration order. */
  static readonly reverse: boolean = false;
  // Fields are declared, not defined: the constructors assign them, in declaration order (an event is
  // made per tool call and per model call, and class field definitions cost more than the assignments).
  declare readonly agent: S;
  declare readonly invocationState: InvocationState;
  constructor(agent: S, invocationState: InvocationState) {
    this.agent = agent;
    this.invocationState = invocationState;
  }
  /** The event's type name, e.g. `BeforeToolCallEvent`. */
  get type(): string {
    return (this.constructor as typeof HookEvent).eventType;
  }
  /** The event's own fields, without `agent` and `invocationState`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { type: this.type };
    for (const [k, v] of Object.entries(this)) {
      if (k !== "agent" && k !== "invocationState" && typeof v !== "function") out[k] = v;
    }
    return out;
  }
}

/** The agent finished its constructor (hooks given at construction are registered). */
export class AgentInitializedEvent extends HookEvent {
  static override readonly eventType = "AgentInitializedEvent";
}

/** An invocation starts (before the input is added to the transcript). */
export class BeforeInvocationEvent extends HookEvent {
  static override readonly eventType = "BeforeInvocationEvent";
  /** Whether this invocation resumes a paused run. */
  readonly resuming: boolean;
  /** The new messages this invocation adds (empty on a resume or when invoked without input). */
  readonly messages: readonly Message[];
  constructor(agent: Agent, invocationState: InvocationState, resuming: boolean, messages: readonly Message[] = []) {
    super(agent, invocationState);
    this.resuming = resuming;
    this.messages = messages;
  }
}

/** An invocation ended: on success, interrupt, error and abort alike. */
export class AfterInvocationEvent extends HookEvent {
  static override readonly eventType = "AfterInvocationEvent";
  static override readonly reverse = true;
  /** Every callback runs, even when one throws (cleanup, session save, publisher close). */
  static readonly runsAll = true;
  /** The result, unless the run failed. */
  readonly result: AgentResult | undefined;
  /** The error the run failed with, if it did. */
  readonly error: unknown;
  constructor(agent: Agent, invocationState: InvocationState, result: AgentResult | undefined, error?: unknown) {
    super(agent, invocationState);
    this.result = result;
    this.error = error;
  }
}

/** A message was appended to the agent's transcript. */
export class MessageAddedEvent extends HookEvent {
  static override readonly eventType = "MessageAddedEvent";
  declare readonly message: Message;
  constructor(agent: Agent, invocationState: InvocationState, message: Message) {
    super(agent, invocationState);
    this.message = message;
  }
}

/** The model is about to be called. */
export class BeforeModelCallEvent extends HookEvent {
  static override readonly eventType = "BeforeModelCallEvent";
  #projected: number | (() => number);
  /**
   * @param agent - The agent about to call its model.
   * @param invocationState - The run's invocation state.
   * @param projectedInputTokens - The estimate, or a function computing it the first time a hook reads it.
   */
  constructor(agent: Agent, invocationState: InvocationState, projectedInputTokens: number | (() => number)) {
    super(agent, invocationState);
    this.#projected = projectedInputTokens;
  }
  /**
   * Estimated input tokens of the call (system prompt + messages, four characters a token). Computed
   * when first read, from the transcript at that moment, so a run whose hooks never read it never pays for it.
   */
  get projectedInputTokens(): number {
    if (typeof this.#projected === "function") this.#projected = this.#projected();
    return this.#projected;
  }
  /** The event's own fields, the estimate included. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), projectedInputTokens: this.projectedInputTokens };
  }
}

/** The model answered (or failed). */
export class AfterModelCallEvent extends HookEvent {
  static override readonly eventType = "AfterModelCallEvent";
  static override readonly reverse = true;
  /** The response: set on success. Hooks may rewrite `message` in place (e.g. tool names). */
  declare readonly stopResponse: { message: Message; stopReason: ModelStopReason } | undefined;
  /** The error, when the call failed. */
  declare readonly error: unknown;
  /** 1 for the first attempt of this model call. */
  declare readonly attempt: number;
  /** Set to true to discard this response (or error) and call the model again. Bounded by `maxModelRetries`. */
  declare retry: boolean;
  /** The tokens this attempt used, as the model reported them; `undefined` when it reported none. */
  declare readonly usage: Usage | undefined;
  constructor(
    agent: Agent,
    invocationState: InvocationState,
    stopResponse: { message: Message; stopReason: ModelStopReason } | undefined,
    error: unknown,
    attempt: number,
    usage?: Usage,
  ) {
    super(agent, invocationState);
    this.stopResponse = stopResponse;
    this.error = error;
    this.attempt = attempt;
    this.retry = false;
    this.usage = usage;
  }
}

/** A tool is about to be called. */
export class BeforeToolCallEvent extends HookEvent {
  static override readonly eventType = "BeforeToolCallEvent";
  /** The call. Replace it (or its `input`) to change what runs; the transcript records the call as it ran. */
  declare toolUse: ToolUseBlock;
  /** The tool that will run; replace it to delegate, `undefined` when the name is unknown. */
  declare selectedTool: AgentTool | undefined;
  /** `true` or a message: the tool does not run and the model reads the message (or a default) as an error result. */
  declare cancel: boolean | string;
  /** Set to true to end the run after this tool batch (the transcript stays consistent). */
  declare stopLoop: boolean;
  constructor(
    agent: Agent,
    invocationState: InvocationState,
    toolUse: ToolUseBlock,
    selectedTool: AgentTool | undefined,
  ) {
    super(agent, invocationState);
    this.toolUse = toolUse;
    this.selectedTool = selectedTool;
    this.cancel = false;
    this.stopLoop = false;
  }
  /**
   * Asks for an answer from outside the run. Id: `hook:beforeToolCall:<toolUseId>:<name>`.
   * @returns The answer, when the run was resumed with one (or `request.response` was given).
   * @throws InterruptSignal to pause the run when there is no answer yet; let it propagate.
   */
  interrupt(request: InterruptRequest): JsonValue {
    return this.agent.interruptState.raise(toolHookInterruptId(this.toolUse.toolUseId, request.name), request);
  }
}

/** What an {@link AfterToolCallEvent} is made of. */
export interface AfterToolCallInit {
  agent: Agent;
  invocationState: InvocationState;
  /** The call as it ran. */
  toolUse: ToolUseBlock;
  /** The tool that ran, `undefined` when the name was unknown. */
  selectedTool: AgentTool | undefined;
  /** The result the model will read. */
  result: ToolResultBlock;
  /** The error the tool threw, if it did. Default none. */
  error?: unknown;
  /** The cancel message, when a BeforeToolCall hook cancelled the call. Default none. */
  cancelMessage?: string | undefined;
}

/** A tool call finished (or was cancelled). */
export class AfterToolCallEvent extends HookEvent {
  static override readonly eventType = "AfterToolCallEvent";
  static override readonly reverse = true;
  declare readonly toolUse: ToolUseBlock;
  declare readonly selectedTool: AgentTool | undefined;
  /** The result the model will read; replace it to rewrite it. */
  declare result: ToolResultBlock;
  /** The error the tool threw, if it did. */
  declare readonly error: unknown;
  /** The cancel message, when a BeforeToolCall hook cancelled the call. */
  declare readonly cancelMessage: string | undefined;
  /** Set to true to run the tool again (bounded by `maxToolRetries`). */
  declare retry: boolean;
  /** Set to true to end the run after this tool batch. */
  declare stopLoop: boolean;
  /** @param init - The call, its tool and result, and the error or cancel message if any (one object, so it can grow). */
  constructor(init: AfterToolCallInit) {
    super(init.agent, init.invocationState);
    this.toolUse = init.toolUse;
    this.selectedTool = init.selectedTool;
    this.result = init.result;
    this.error = init.error;
    this.cancelMessage = init.cancelMessage;
    this.retry = false;
    this.stopLoop = false;
  }
}

/** An orchestrator (Graph, Swarm) was constructed. */
export class MultiAgentInitializedEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "MultiAgentInitializedEvent";
}

/** An orchestrator's invocation starts. */
export class BeforeMultiAgentInvocationEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "BeforeMultiAgentInvocationEvent";
}

/** An orchestrator's invocation ended (any outcome). */
export class AfterMultiAgentInvocationEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "AfterMultiAgentInvocationEvent";
  static override readonly reverse = true;
  /** Every callback runs, even when one throws. */
  static readonly runsAll = true;
  /** The orchestrator's result, if it finished. */
  readonly result: unknown;
  readonly error: unknown;
  constructor(agent: Orchestrator, invocationState: InvocationState, result: unknown, error?: unknown) {
    super(agent, invocationState);
    this.result = result;
    this.error = error;
  }
}

/** A node of an orchestrator is about to run. */
export class BeforeNodeCallEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "BeforeNodeCallEvent";
  readonly nodeId: string;
  /** `true` or a message: the node does not run and fails with that message. */
  cancelNode: boolean | string = false;
  constructor(agent: Orchestrator, invocationState: InvocationState, nodeId: string) {
    super(agent, invocationState);
    this.nodeId = nodeId;
  }
  /**
   * Asks for an answer before the node runs. Id: `hook:beforeNodeCall:<nodeId>:<name>`.
   * @throws InterruptSignal when there is no answer yet.
   */
  interrupt(request: InterruptRequest): JsonValue {
    return this.agent.interruptState.raise(nodeHookInterruptId(this.nodeId, request.name), request);
  }
}

/** A node of an orchestrator finished. */
export class AfterNodeCallEvent extends HookEvent<Orchestrator> {
  static override readonly eventType = "AfterNodeCallEvent";
  static override readonly reverse = true;
  readonly nodeId: string;
  readonly result: unknown;
  readonly error: unknown;
  constructor(agent: Orchestrator, invocationState: InvocationState, nodeId: string, result: unknown, error?: unknown) {
    super(agent, invocationState);
    this.nodeId = nodeId;
    this.result = result;
    this.error = error;
  }
}
