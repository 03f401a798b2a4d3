/**
 * EventPublisher: turns an agent's (or orchestrator's) lifecycle into {@link StreamEvent}s for an
 * activity feed, a log, or the AG-UI adapter.
 *
 * @module
 */
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  AfterToolCallEvent,
  BeforeInvocationEvent,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  type InvocationState,
  type Orchestrator,
} from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { Message } from "../agent/messages.js";
import { runContext } from "../agent/run-context.js";
import {
  completionData,
  describeError,
  incomingTask,
  orchestratorType,
  outcomeStatus,
  resultText,
  toolData,
} from "./event-publisher/helpers.js";
import { publisherSettings, type EventPublisherOptions } from "./event-publisher/options.js";
import {
  createStreamHandler,
  type StreamHandler,
  type StreamHandlerOptions,
} from "./event-publisher/stream-handler.js";
import { ThreadStates } from "./event-publisher/threads.js";
import {
  EventType,
  type StreamEvent,
  type StreamEventCallback,
  type StreamEventData,
} from "./event-publisher/types.js";

export { EventType, streamEventToJSON } from "./event-publisher/types.js";
export type {
  MultiAgentHandoffEvent,
  StreamEvent,
  StreamEventCallback,
  StreamEventData,
  StreamEventJSON,
} from "./event-publisher/types.js";
export type { StreamHandler, StreamHandlerOptions } from "./event-publisher/stream-handler.js";
export { resolveToolLabel, incomingTask } from "./event-publisher/helpers.js";
export type { EventPublisherOptions } from "./event-publisher/options.js";

/**
 * Publishes an agent's lifecycle as {@link StreamEvent}s: `AGENT_START`, `TOOL_START` (label and
 * input), `TOOL_END` (status, error, result text cut to `maxResultLen`), `ERROR` (a failed model
 * call, or a run that failed otherwise), and one end per invocation: `AGENT_COMPLETE` (usage,
 * cycles, duration, stop reason, final text), `INTERRUPT` per open question (the run paused;
 * treat it as an end of turn), or the `ERROR`. As an orchestrator's hook it publishes
 * `MULTIAGENT_START`, `NODE_START`, `NODE_STOP` and `MULTIAGENT_COMPLETE`. `TOKEN`, `TOOL_INPUT`,
 * `REASONING` and `HANDOFF` come from the stream: see {@link EventPublisher.asCallbackHandler}.
 *
 * - **Groups.** With `streamGroup`, a fresh invocation opens `STREAM_GROUP_START` (`parent_group`,
 *   `tool_call_id`, `task`, `is_chat_reply`, `inline_chat_owner`) and closes with
 *   `STREAM_GROUP_END` (`status`: `completed`, `cancelled` or `error`; a paused run leaves it open).
 *   The *N*th fresh invocation in one conversation is `streamGroup#N` (the first has no suffix);
 *   a resume continues the paused invocation's group and count. Every agent event then carries
 *   `stream_group` and `stream_title`; all carry `agent_name`, `thread_id` and `run_id`.
 * - **Conversations.** One publisher may serve many concurrent runs: the `#N` counter, active group
 *   and error latch are kept per thread id (`invocationState.threadId`, a string; runs
 *   without one share the `undefined` conversation). At most `maxThreads` conversations are
 *   remembered (least recently started idle ones go first), so a long-lived publisher does not grow.
 *   The state is per conversation, not per run, because the `#N` count spans the turns of a
 *   conversation; two runs of the *same* conversation at once share it, as in the Python original.
 * - **Failures.** A callback that throws or rejects is logged and the run goes on. Callbacks are
 *   called synchronously in event order; a returned promise is not awaited.
 * - **Errors.** An `ERROR` is published when a model call fails. Unlike the Python original (where
 *   a model error always ends the run), a hook here may retry the call: the end event follows the
 *   run's outcome, and a failed run does not publish its error twice.
 * - **Wire format.** `data` keys are the Python publisher's snake_case names.
 *   Not ported: Python's `turn_id` (no such key here) and `structured_output`.
 *
 * @example
 * ```ts
 * const publisher = new EventPublisher((e) => feed.push(e), "analyst", { toolLabels: { search: "Searching" } });
 * const agent = new Agent({ name: "analyst", model, tools, hooks: [publisher] });
 * const onStream = publisher.asCallbackHandler({ threadId: "t1" });
 * for await (const e of agent.stream("Summarise Q3", { invocationState: { threadId: "t1" } })) onStream(e);
 * ```
 */
export class EventPublisher implements HookProvider {
  /** The agent (or orchestrator) named in every event. */
  readonly agentName: string;
  readonly #publish: (event: StreamEvent) => void;
  readonly #labels: Readonly<Record<string, string>>;
  readonly #group: string;
  readonly #title: string;
  readonly #isChatReply: boolean;
  readonly #maxResultLen: number;
  readonly #now: () => number;
  readonly #threads: ThreadStates;
  #inlineChatOwner = false;

  /**
   * @param callback - Receives every event (see {@link StreamEventCallback}).
   * @param agentName - Identifies the agent or orchestrator.
   * @param options - See {@link EventPublisherOptions}: `toolLabels = {}`, `streamGroup = ""`,
   *   `streamTitle = ""`, `isChatReply = false`, `maxResultLen = 16000`, `maxThreads = 1000`,
   *   `logger = defaultLogger`, `now = Date.now`.
   * @throws UserError when `callback` is not a function, or `maxResultLen` or `maxThreads` is not a positive integer.
   */
  constructor(callback: StreamEventCallback, agentName: string, options: EventPublisherOptions = {}) {
    const s = publisherSettings(callback, agentName, options);
    this.agentName = s.agentName;
    this.#publish = s.publish;
    this.#labels = s.labels;
    this.#group = s.group;
    this.#title = s.title;
    this.#isChatReply = s.isChatReply;
    this.#maxResultLen = s.maxResultLen;
    this.#now = s.now;
    this.#threads = new ThreadStates(s.maxThreads);
  }

  /**
   * Marks this publisher's group as the inline chat owner: the host already renders this agent's
   * text and tool calls inline in the chat, so its group only enriches those rows and must not
   * also render as a card. `STREAM_GROUP_START` then carries `inline_chat_owner: true`.
   */
  markInlineChatOwner(): void {
    this.#inlineChatOwner = true;
  }

  /** How many conversations this publisher currently remembers (bounded by `maxThreads`). */
  get threadCount(): number {
    return this.#threads.size;
  }

  /** Registers the agent-level and orchestrator-level callbacks. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (e) => this.#onAgentStart(e));
    registry.addCallback(AfterModelCallEvent, (e) => this.#onModelError(e));
    registry.addCallback(BeforeToolCallEvent, (e) => this.#onToolStart(e));
    registry.addCallback(AfterToolCallEvent, (e) => this.#onToolEnd(e));
    registry.addCallback(AfterInvocationEvent, (e) => this.#onComplete(e));
    registry.addCallback(BeforeMultiAgentInvocationEvent, (e) =>
      this.#onOrchestrator(EventType.MULTIAGENT_START, e.agent, e.invocationState, {}),
    );
    registry.addCallback(BeforeNodeCallEvent, (e) =>
      this.#onOrchestrator(EventType.NODE_START, e.agent, e.invocationState, { node_id: e.nodeId }),
    );
    registry.addCallback(AfterNodeCallEvent, (e) =>
      this.#onOrchestrator(EventType.NODE_STOP, e.agent, e.invocationState, {
        node_id: e.nodeId,
        status: outcomeStatus(e.result, e.error),
      }),
    );
    registry.addCallback(AfterMultiAgentInvocationEvent, (e) =>
      this.#onOrchestrator(EventType.MULTIAGENT_COMPLETE, e.agent, e.invocationState, {
        status: outcomeStatus(e.result, e.error),
      }),
    );
  }

  /**
   * A handler for the runner's stream (`agent.stream()` events) and orchestrators' handoffs,
   * publishing `TOKEN`, `TOOL_INPUT` (the tool's input so far), `REASONING` and `HANDOFF`.
   *
   * Stream events carry no `invocationState`, so the handler is made for one conversation: pass
   * its `threadId` (and `runId`), or the run's `invocationState` to read both from. Its events then
   * carry that conversation's active group. Make one handler per run: it tracks the run's open
   * tool calls by content-block index.
   * @param options - `{ threadId?, runId?, invocationState? }`; explicit ids win. Default: the `undefined` conversation.
   * @returns The handler; it never throws.
   * @example
   * ```ts
   * const invocationState = { threadId: "t1", runId: "r7" };
   * const onStream = publisher.asCallbackHandler({ invocationState });
   * for await (const e of agent.stream(prompt, { invocationState })) onStream(e);
   * ```
   */
  asCallbackHandler(options: StreamHandlerOptions = {}): StreamHandler {
    const threadId = options.threadId ?? threadOf(options.invocationState);
    const runId = options.runId ?? runOf(options.invocationState);
    return createStreamHandler({
      labels: this.#labels,
      emit: (type, data) => this.#emit(type, this.#enrich(data, threadId, runId)),
    });
  }

  #emit(type: EventType, data: StreamEventData): void {
    this.#publish({ type, agentName: this.agentName, timestamp: this.#now(), data });
  }

  #enrich(data: StreamEventData, threadId: string | undefined, runId: string | undefined): StreamEventData {
    const group = this.#threads.peek(threadId)?.activeGroup ?? this.#group;
    if (group) {
      data.stream_group = group;
      data.stream_title = this.#title;
    }
    data.agent_name = this.agentName;
    data.thread_id = threadId ?? null;
    data.run_id = runId ?? null;
    return data;
  }

  #agentEvent(type: EventType, state: InvocationState, data: StreamEventData): void {
    this.#emit(type, this.#enrich(data, threadOf(state), runOf(state)));
  }

  #onAgentStart(event: BeforeInvocationEvent): void {
    const threadId = threadOf(event.invocationState);
    const thread = this.#threads.use(threadId, this.#group);
    thread.running++;
    thread.errored = false;
    // A resume continues the paused invocation: same group, no new `#N`, no second group start.
    if (!event.resuming) {
      thread.count++;
      // A node run by an orchestrator gets its dot path (with the orchestrator's own `#N`) as its group.
      const path = runContext.streamPath.find(event.invocationState);
      const group = path
        ? path
        : this.#group
          ? thread.count > 1
            ? `${this.#group}#${thread.count}`
            : this.#group
          : "";
      if (group) {
        thread.activeGroup = group;
        const dot = group.lastIndexOf(".");
        this.#agentEvent(EventType.STREAM_GROUP_START, event.invocationState, {
          parent_group: dot >= 0 ? group.slice(0, dot) : null,
          tool_call_id: runContext.delegationId.find(event.invocationState) ?? null,
          // BeforeInvocation fires before the input joins the transcript; an event that carries
          // the incoming messages gives the task, otherwise the card shows none.
          task: incomingTask(event.messages as Message[]),
          is_chat_reply: this.#isChatReply,
          inline_chat_owner: this.#inlineChatOwner,
        });
      }
    }
    this.#agentEvent(EventType.AGENT_START, event.invocationState, {});
  }

  #onModelError(event: AfterModelCallEvent): void {
    if (event.error === undefined) return;
    const thread = this.#threads.peek(threadOf(event.invocationState));
    if (thread) thread.errored = true;
    const { text, type } = describeError(event.error);
    this.#agentEvent(EventType.ERROR, event.invocationState, { text, exception_type: type, attempt: event.attempt });
  }

  #onToolStart(event: BeforeToolCallEvent): void {
    const data = toolData(event.toolUse, this.#labels);
    data.tool_input = event.toolUse.input ?? {};
    this.#agentEvent(EventType.TOOL_START, event.invocationState, data);
  }

  #onToolEnd(event: AfterToolCallEvent): void {
    const data = toolData(event.toolUse, this.#labels);
    data.status = event.error !== undefined || event.result?.status === "error" ? "error" : "success";
    data.error = event.error === undefined ? null : describeError(event.error).text;
    data.tool_result = resultText(event.result, this.#maxResultLen);
    this.#agentEvent(EventType.TOOL_END, event.invocationState, data);
  }

  #onComplete(event: AfterInvocationEvent): void {
    const state = event.invocationState;
    const thread = this.#threads.peek(threadOf(state));
    const errored = thread?.errored ?? false;
    if (thread) {
      thread.running = Math.max(0, thread.running - 1);
      thread.errored = false;
    }
    const result = event.result;
    if (!result) {
      if (!errored) {
        const { text, type } = describeError(event.error);
        this.#agentEvent(EventType.ERROR, state, { text, exception_type: type });
      }
      if (thread?.activeGroup) this.#agentEvent(EventType.STREAM_GROUP_END, state, { status: "error" });
      return;
    }
    if (result.stopReason === "interrupt") {
      for (const i of result.interrupts) {
        this.#agentEvent(EventType.INTERRUPT, state, { interrupt_id: i.id, name: i.name, reason: i.reason ?? null });
      }
      return;
    }
    this.#agentEvent(EventType.AGENT_COMPLETE, state, completionData(result));
    if (thread?.activeGroup)
      this.#agentEvent(EventType.STREAM_GROUP_END, state, {
        status: result.stopReason === "cancelled" ? "cancelled" : "completed",
      });
  }

  #onOrchestrator(type: EventType, source: Orchestrator, state: InvocationState, data: StreamEventData): void {
    // As in the Python original, orchestrator events carry no stream group: groups belong to agents.
    data.multiagent_type = orchestratorType(source);
    data.agent_name = this.agentName;
    data.thread_id = threadOf(state) ?? null;
    data.run_id = runOf(state) ?? null;
    this.#emit(type, data);
  }
}

// A host's malformed id reads as none: the feed keeps going under the `undefined` conversation.
const threadOf = (state: InvocationState | undefined) => (state ? runContext.threadId.find(state) : undefined);
const runOf = (state: InvocationState | undefined) => (state ? runContext.runId.find(state) : undefined);
