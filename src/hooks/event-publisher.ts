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
} from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { runContext } from "../agent/run-context.js";
import { lazy } from "../lazy.js";
import type { Lifecycle } from "./event-publisher/lifecycle.js";
import { publisherSettings, type EventPublisherOptions, type PublisherSettings } from "./event-publisher/options.js";
import {
  createStreamHandler,
  type StreamHandler,
  type StreamHandlerOptions,
} from "./event-publisher/stream-handler.js";
import { ThreadStates } from "./event-publisher/threads.js";
import type { EventType, StreamEvent, StreamEventCallback, StreamEventData } from "./event-publisher/types.js";

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
 * - **Loading.** What the publisher makes of a run's lifecycle loads with its first event (in a page:
 *   with the agent's first run, not with the page); a failed load fails that run with a HookError, and
 *   the next event loads it again. `asCallbackHandler` needs no load.
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
  readonly #settings: PublisherSettings;
  readonly #threads: ThreadStates;
  #inlineChatOwner = false;
  /** The lifecycle events, once loaded (see {@link EventPublisher.registerHooks}). */
  #lifecycle: Lifecycle | undefined;

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
    this.#settings = s;
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

  /**
   * Registers the agent-level and orchestrator-level callbacks. What they publish loads with the
   * publisher's first event (in a page: with the agent's first run), so the page does not ship it; that
   * event waits for it, the later ones do not. A failed load fails that event's hook call (the run fails
   * with a HookError) and the next event loads it again.
   */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (e) => this.#on((l) => l.agentStart(e)));
    registry.addCallback(AfterModelCallEvent, (e) => this.#on((l) => l.modelError(e)));
    registry.addCallback(BeforeToolCallEvent, (e) => this.#on((l) => l.toolStart(e)));
    registry.addCallback(AfterToolCallEvent, (e) => this.#on((l) => l.toolEnd(e)));
    registry.addCallback(AfterInvocationEvent, (e) => this.#on((l) => l.complete(e)));
    registry.addCallback(BeforeMultiAgentInvocationEvent, (e) => this.#on((l) => l.multiAgentStart(e)));
    registry.addCallback(BeforeNodeCallEvent, (e) => this.#on((l) => l.nodeStart(e)));
    registry.addCallback(AfterNodeCallEvent, (e) => this.#on((l) => l.nodeStop(e)));
    registry.addCallback(AfterMultiAgentInvocationEvent, (e) => this.#on((l) => l.multiAgentComplete(e)));
  }

  /** Publishes an event through the lifecycle: synchronously once it is loaded. */
  #on(publish: (lifecycle: Lifecycle) => void): void | Promise<void> {
    if (this.#lifecycle) return publish(this.#lifecycle);
    return loadLifecycle().then((m) => {
      this.#lifecycle ??= new m.Lifecycle({
        settings: this.#settings,
        threads: this.#threads,
        inlineChatOwner: () => this.#inlineChatOwner,
        agentEvent: (type, state, data) => this.#emit(type, this.#enrich(data, threadOf(state), runOf(state))),
        emit: (type, data) => this.#emit(type, data),
        threadOf,
        runOf,
      });
      publish(this.#lifecycle);
    });
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
      labels: this.#settings.labels,
      emit: (type, data) => this.#emit(type, this.#enrich(data, threadId, runId)),
    });
  }

  #emit(type: EventType, data: StreamEventData): void {
    this.#settings.publish({ type, agentName: this.agentName, timestamp: this.#settings.now(), data });
  }

  #enrich(data: StreamEventData, threadId: string | undefined, runId: string | undefined): StreamEventData {
    const group = this.#threads.peek(threadId)?.activeGroup ?? this.#settings.group;
    if (group) {
      data.stream_group = group;
      data.stream_title = this.#settings.title;
    }
    data.agent_name = this.agentName;
    data.thread_id = threadId ?? null;
    data.run_id = runId ?? null;
    return data;
  }
}

/** The lifecycle events' module (see {@link lazy}). */
const loadLifecycle = lazy(() => import("./event-publisher/lifecycle.js"));

// A host's malformed id reads as none: the feed keeps going under the `undefined` conversation.
const threadOf = (state: InvocationState | undefined) => (state ? runContext.threadId.find(state) : undefined);
const runOf = (state: InvocationState | undefined) => (state ? runContext.runId.find(state) : undefined);
