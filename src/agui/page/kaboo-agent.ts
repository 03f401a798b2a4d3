/**
 * KabooAgent: the runner as an AG-UI `AbstractAgent`, running in the page.
 *
 * @module
 */
import { AbstractAgent } from "@ag-ui/client";
import type { KabooAgentConfig, KabooRunParameters } from "./config.js";

export type { KabooAgentConfig, KabooRunParameters } from "./config.js";
import {
  EventType,
  type AgentCapabilities,
  type BaseEvent,
  type Interrupt as AguiInterrupt,
  type RunAgentInput,
} from "@ag-ui/core";
import type { Observable } from "rxjs";
import type { Agent } from "../../agent/agent.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import { IndexedDbExecutionLedger } from "../../indexeddb/ledger.js";
import { describe } from "../../errors.js";
import { runError, runStarted } from "../run-events.js";
import { RunInProgressError, StaleThreadError } from "./errors.js";
import { continuation, replay, watchRun, type RunFailure } from "./reattach.js";
import { OpenParts } from "./relay.js";
import { RunRecorder } from "./run-record.js";
import { ViewStops } from "./view-stops.js";
import { recordedRun } from "./recorded-run.js";
import { RunChannel, RunLocks } from "./run-lock.js";
import { pageView } from "./page-view.js";
import type { ThreadSnapshot } from "../../indexeddb/session-store.js";
import { decideRun } from "../core/decide.js";

/** What a tab keeps of one thread. */
interface PageThread {
  /** Its runner agent, made by the config's factory (a single runner agent is kept by the config). */
  runner?: Agent | undefined;
  /** The channel its run's events go to the other tabs (and this tab's watchers) by. */
  channel?: RunChannel;
  /** The Stop of the run this tab drives on it: a run outlives the view that started it. */
  driving?: AbortController | undefined;
  /** How its last run failed, as it happened here or as the thread's record kept it; `undefined` once one ends well. */
  failure?: RunFailure | undefined;
}

/**
 * Runs a kaboo-workflows agent in the page and speaks AG-UI 1.0 to the front end
 * (CopilotKit, the demo, any `@ag-ui/client` consumer).
 *
 * Approvals pause a run with `RUN_FINISHED { outcome: { type: "interrupt" } }`; answer with
 * `runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved, scope, editedArgs } }] })`.
 * Once a request's `expiresAt` has passed, `@ag-ui/client` refuses to send an answer to it: send
 * `status: "cancelled"` to continue the thread (the gate tells the model the request lapsed).
 * Every call is claimed in the execution ledger (IndexedDB by default) before it runs: a reload in
 * the middle of a run, a second tab or a replayed resume gets the recorded result, never a second
 * run.
 *
 * With a `sessionStore`, a run is checkpointed after each step (the person's message, each model
 * response before its calls run, each tool result), and `connectAgent()` after a reload continues
 * an unfinished run from its last checkpoint: a cut answer is asked of the model again, finished
 * calls are never run again, and a call that was claimed but has no result is asked about once
 * (`outcome_unknown`), never approved again first. A run that failed keeps its error
 * ({@link KabooAgent.runFailure}). One tab drives a thread's run (a Web Lock); `connectAgent()` in
 * another tab watches it live, and takes it over from its checkpoint if the driving tab dies.
 *
 * @example
 * ```ts
 * const agent = new KabooAgent({
 *   threadId: "t1",
 *   agent: () => new Agent({ model, tools, hooks: [new InterruptHook(["transfer"]), new SessionStateHook()] }),
 *   grantStore: new IndexedDbGrantStore(),
 *   sessionStore: new IndexedDbSessionStore(),
 * });
 * await agent.connectAgent(); // restore after a reload
 * agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "Pay Alice 5" });
 * await agent.runAgent();
 * ```
 */
export class KabooAgent extends AbstractAgent {
  readonly #config: KabooAgentConfig;
  readonly #ledger: ExecutionLedger | undefined;
  readonly #locks: RunLocks;
  /** The Stop of the run or connect starting or running in this view, which `abortRun()` aborts. */
  readonly #stops = new ViewStops();
  /** What this tab keeps of each thread (see {@link PageThread}). */
  readonly #threads = new Map<string, PageThread>();

  constructor(config: KabooAgentConfig) {
    super(config);
    this.#config = config;
    const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
    const locks = config.locks === null ? undefined : (config.locks ?? nav?.locks);
    this.#locks = new RunLocks(locks);
    // Shared by every thread and tab of the page; keys carry the thread. Where there is no
    // IndexedDB (a test in Node), each runner agent keeps its own memory ledger.
    this.#ledger =
      config.ledger === null
        ? undefined
        : (config.ledger ??
          (typeof indexedDB === "undefined" ? undefined : new IndexedDbExecutionLedger({ locks: locks ?? null })));
  }

  /** The runner agent serving a thread. */
  runnerFor(threadId: string): Agent {
    const source = this.#config.agent;
    if (typeof source !== "function") return source;
    const thread = this.#thread(threadId);
    thread.runner ??= source(threadId);
    return thread.runner;
  }

  /**
   * How this thread's last run failed (`RUN_ERROR` code and message), as it happened here or as the
   * thread's record kept it (read by `connectAgent()`); `undefined` once a run ends well.
   */
  get runFailure(): RunFailure | undefined {
    return this.#threads.get(this.threadId)?.failure;
  }

  override run(input: RunAgentInput): Observable<BaseEvent> {
    return this.#stops.observe((stop) => this.#runEvents(input, stop));
  }

  /**
   * Restores the thread after a reload: replays its stored snapshot (messages, state, open
   * interrupts), or continues its unfinished run from the last checkpoint, or, while another tab
   * drives the run, passes on that tab's events live (and takes the run over if that tab dies).
   */
  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    return this.#stops.observe((stop, view) => this.#connectEvents(input, stop, view));
  }

  /**
   * Shows the thread as its record holds it (see {@link KabooAgent.connect}). The open questions come
   * from the record too, so those this tab still showed are dropped first: the AG-UI client would
   * otherwise refuse to connect while they are unanswered (a tab whose view went stale).
   * @param parameters - As for `AbstractAgent.connectAgent`, plus `abortController`: aborting it stops what the
   *   connect continues (an unfinished run), as for {@link KabooAgent.runAgent}.
   * @param subscriber - As for `AbstractAgent.connectAgent`.
   * @returns As `AbstractAgent.connectAgent`.
   */
  override connectAgent(
    parameters?: KabooRunParameters,
    subscriber?: Parameters<AbstractAgent["connectAgent"]>[1],
  ): ReturnType<AbstractAgent["connectAgent"]> {
    this.pendingInterrupts = [];
    return this.#stops.starting(parameters, () => super.connectAgent(parameters, subscriber));
  }

  /**
   * Runs the thread (see `AbstractAgent.runAgent`).
   * @param parameters - As for `AbstractAgent.runAgent`, plus `abortController` (as `HttpAgent` takes one):
   *   aborting it stops this run, also before its first event. Default: a new one, which `abortRun()` aborts.
   * @param subscriber - As for `AbstractAgent.runAgent`.
   * @returns As `AbstractAgent.runAgent`.
   */
  override runAgent(
    parameters?: KabooRunParameters,
    subscriber?: Parameters<AbstractAgent["runAgent"]>[1],
  ): ReturnType<AbstractAgent["runAgent"]> {
    return this.#stops.starting(parameters, () => super.runAgent(parameters, subscriber));
  }

  /**
   * A copy over the same config, stores and ledger (so the same thread's runs stay exactly once across the two),
   * with copies of this agent's thread id, messages, state and open questions, and its subscribers and
   * middlewares. With a factory for `agent` its runner agents are its own; one runner `Agent` is shared with the
   * original (so is its one run at a time). (`AbstractAgent.clone()` copies no private field, so its copy
   * of a `KabooAgent` could not run; CopilotKit clones an agent to run suggestions.)
   * @returns The copy.
   */
  override clone(): KabooAgent {
    const copy = new KabooAgent({
      ...this.#config,
      ledger: this.#ledger ?? null,
      ...(this.agentId === undefined ? {} : { agentId: this.agentId }),
      description: this.description,
      threadId: this.threadId,
      initialMessages: this.messages,
      initialState: this.state,
    });
    copy.debug = this.debug;
    copy.subscribers = [...this.subscribers];
    // As AbstractAgent.clone() does; the field is private to its types only.
    const chain = (agent: AbstractAgent) => agent as unknown as { middlewares: unknown[] };
    chain(copy).middlewares = [...chain(this).middlewares];
    copy.pendingInterrupts = structuredClone(this.pendingInterrupts);
    return copy;
  }

  /**
   * Stops the current run, or the one `runAgent()`/`connectAgent()` is starting, and the run this tab drives on
   * the current thread (one a view left, followed again with `connectAgent()`).
   */
  override abortRun(): void {
    this.#stops.abort();
    this.#threads.get(this.threadId)?.driving?.abort();
    super.abortRun();
  }

  /** Human-in-the-loop support: approvals, approve-with-edits and interrupts. */
  override async getCapabilities(): Promise<AgentCapabilities> {
    return {
      humanInTheLoop: { supported: true, approvals: true, approveWithEdits: true, interrupts: true },
      state: { snapshots: true, deltas: true },
    } as AgentCapabilities;
  }

  async *#runEvents(input: RunAgentInput, stop: AbortController): AsyncGenerator<BaseEvent> {
    const lock = await this.#locks.tryTake(input.threadId);
    if (!lock) {
      yield runStarted(input);
      yield runError(
        new RunInProgressError(
          "This thread's run is still going (in another tab, or in this one after its view left); " +
            "watch it with connectAgent().",
        ),
      );
      return;
    }
    this.#thread(input.threadId).driving = stop;
    try {
      const stored = await this.#config.sessionStore?.load(input.threadId);
      const decided = await decideRun(pageView(stored), input);
      if (!("run" in decided)) {
        // The page records no outcomes to replay (its view has none): a spent resume is stale here.
        yield runStarted(input);
        yield runError("refuse" in decided ? decided.refuse : new StaleThreadError("This thread went on elsewhere."));
        return;
      }
      const { messages } = decided.run;
      yield* this.#drive({ ...input, messages }, { asked: stored?.interrupts ?? [], continueRun: false }, stop);
    } finally {
      this.#undrive(input.threadId, stop);
      await lock.release();
    }
  }

  async *#connectEvents(input: RunAgentInput, stop: AbortController, view: AbortSignal): AsyncGenerator<BaseEvent> {
    const lock = await this.#locks.tryTake(input.threadId);
    if (!lock) {
      yield* watchRun({
        input,
        store: this.#config.sessionStore,
        locks: this.#locks,
        channel: this.#channel(input.threadId),
        signal: view,
        onFailure: (failure) => {
          this.#thread(input.threadId).failure = failure;
        },
        takeOver: (snapshot) => this.#resume(input, snapshot, stop),
      });
      return;
    }
    try {
      yield* this.#resume(input, await this.#config.sessionStore?.load(input.threadId), stop);
    } finally {
      await lock.release();
    }
  }

  /** With the thread's lock held: continues its unfinished run, or replays its snapshot. */
  async *#resume(
    input: RunAgentInput,
    snapshot: ThreadSnapshot | undefined,
    stop: AbortController,
  ): AsyncGenerator<BaseEvent> {
    this.#thread(input.threadId).failure = snapshot?.run?.status === "failed" ? snapshot.run.error : undefined;
    if (snapshot?.run?.status !== "running") {
      yield* replay(input, snapshot);
      return;
    }
    const busy = this.#sharedRunnerBusy();
    if (busy) {
      yield* [runStarted(input), runError(busy)];
      return;
    }
    // The runner starts from the checkpoint, not from what this tab held before.
    const source = this.#config.agent;
    if (typeof source === "function") this.#thread(input.threadId).runner = undefined;
    else source.discardInterrupts();
    const next = continuation(input.threadId, snapshot);
    yield* next.opening;
    for await (const event of this.#drive(
      next.input,
      { asked: snapshot.interrupts, continueRun: next.continueRun },
      stop,
    )) {
      if (event.type !== EventType.RUN_STARTED) yield event;
    }
  }

  /**
   * Runs `input` with the thread's lock held: checkpoints each step and tells the other tabs (and this tab's
   * own watchers). Only `stop` ends it early; `abortRun()` finds it by its thread while this tab drives it.
   */
  async *#drive(
    input: RunAgentInput,
    o: { asked: AguiInterrupt[]; continueRun: boolean },
    stop: AbortController,
  ): AsyncGenerator<BaseEvent> {
    const busy = this.#sharedRunnerBusy();
    if (busy) {
      yield* [runStarted(input), runError(busy)];
      return;
    }
    const store = this.#config.sessionStore;
    const recorder = new RunRecorder(store, input, o.asked);
    try {
      await recorder.start();
    } catch (error) {
      // Not recorded, not run: a reload could not continue it.
      this.#thread(input.threadId).failure = { code: "RUN_FAILED", message: describe(error) };
      yield runStarted(input);
      yield runError(error);
      return;
    }
    const channel = this.#channel(input.threadId);
    // A tab that starts watching mid-message gets the message so far.
    const open = new OpenParts();
    const unlisten = channel.onJoin((to) => {
      for (const event of open.catchUp()) channel.post({ runId: input.runId, event, to });
    });
    this.#thread(input.threadId).driving = stop;
    try {
      yield* recordedRun({
        runner: this.runnerFor(input.threadId),
        input,
        config: this.#config,
        ledger: this.#ledger,
        continueRun: o.continueRun,
        recorder,
        signal: stop.signal,
        onFailure: (failure) => {
          this.#thread(input.threadId).failure = failure;
        },
        tell: (event) => {
          open.note(event);
          channel.post({ runId: input.runId, event });
        },
      });
    } finally {
      unlisten();
      this.#undrive(input.threadId, stop);
    }
  }

  /**
   * With one runner `Agent` for every thread (not a factory): the refusal while it runs another thread's run (one
   * whose view left goes on), before anything of this run is recorded or its runner's questions are dropped.
   */
  #sharedRunnerBusy(): RunInProgressError | undefined {
    const source = this.#config.agent;
    if (typeof source === "function" || !source.running) return undefined;
    return new RunInProgressError(
      "The runner agent is running another thread's run; give KabooAgent a factory " +
        "(agent: (threadId) => new Agent(…)) to run threads side by side.",
    );
  }

  #channel(threadId: string): RunChannel {
    const thread = this.#thread(threadId);
    thread.channel ??= new RunChannel(threadId);
    return thread.channel;
  }

  #thread(threadId: string): PageThread {
    let thread = this.#threads.get(threadId);
    if (!thread) {
      thread = {};
      this.#threads.set(threadId, thread);
    }
    return thread;
  }

  /** Forgets `stop` as the Stop of the run this tab drives on the thread, unless another run took its place. */
  #undrive(threadId: string, stop: AbortController): void {
    const thread = this.#threads.get(threadId);
    if (thread?.driving === stop) thread.driving = undefined;
  }
}
