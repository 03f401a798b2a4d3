/**
 * KabooAgent: the runner as an AG-UI `AbstractAgent`, running in the page.
 *
 * @module
 */
import { AbstractAgent, type AgentConfig as AguiAgentConfig } from "@ag-ui/client";
import {
  EventType,
  type AgentCapabilities,
  type BaseEvent,
  type Interrupt as AguiInterrupt,
  type Message as AguiMessage,
  type RunAgentInput,
} from "@ag-ui/core";
import { Observable } from "rxjs";
import type { Agent } from "../../agent/agent.js";
import type { AuditLog } from "../../agent/audit/audit.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import { IndexedDbExecutionLedger } from "../../indexeddb/ledger.js";
import type { InvocationState } from "../../agent/events.js";
import type { GrantStore } from "../../grants/store.js";
import type { ClientToolHandler } from "../client-tools.js";
import { runAgui } from "../run.js";
import { describe } from "../../errors.js";
import { defaultLogger } from "../../logger.js";
import { runError, runStarted } from "../run-events.js";
import { RunInProgressError, StaleThreadError } from "./errors.js";
import { continuation, replay, watchRun, type RunFailure } from "./reattach.js";
import { OpenParts } from "./relay.js";
import { RunRecorder } from "./run-record.js";
import { RunChannel, RunLocks } from "./run-lock.js";
import { checkedMessages } from "./thread-history.js";
import type { SessionStore, ThreadSnapshot } from "../../indexeddb/session-store.js";
import { answersOf, spentElsewhere } from "../spent-answers.js";

/** Options of {@link KabooAgent}. */
export interface KabooAgentConfig extends AguiAgentConfig {
  /** The runner agent, or a factory giving each thread its own (recommended: threads never share a transcript). */
  agent: Agent | ((threadId: string) => Agent);
  /** Remembered approvals: sent with every run, and `thread`/`always` answers are recorded. */
  grantStore?: GrantStore;
  /**
   * Keeps each thread's last snapshot, and a checkpoint of a run after each step, so that
   * `connectAgent()` can restore the thread, or continue its run, after a reload.
   */
  sessionStore?: SessionStore;
  /**
   * The Web Locks manager that lets one tab drive a thread's run (the others watch it). Default
   * `navigator.locks` where it exists; `null` for none (then nothing stops two tabs from driving).
   * The default ledger uses the same manager.
   */
  locks?: LockManager | null;
  /**
   * The record of which calls ran, claimed before each call: the same call approved in two tabs, or
   * resumed again after a reload, runs once. Default: an {@link IndexedDbExecutionLedger} (Web Locks
   * across tabs) where IndexedDB exists; `null` leaves each runner agent its own memory ledger.
   */
  ledger?: ExecutionLedger | null;
  /**
   * The audit trail (e.g. `IndexedDbAuditLog`): questions, answers, grant uses and calls of every
   * thread, hash-chained per thread; each new entry is also sent as a CUSTOM `kaboo_audit` event.
   * Default: none.
   */
  audit?: AuditLog;
  /**
   * The person using this page, read at the start of each run (a function when it can change, e.g.
   * a persona switch): the gates see it (four-eyes approvals: who asked, who approved), and the
   * grants of `grantStore` are read and recorded for that person only. Default: none.
   */
  principal?: string | (() => string | undefined);
  /** Browser tools the page runs itself, by name. */
  clientToolHandlers?: Record<string, ClientToolHandler>;
  /** Extra per-run setup of `invocationState`. */
  prepare?: (invocationState: InvocationState) => void | Promise<void>;
}

/** `runAgent()`/`connectAgent()` parameters: AG-UI's, plus the controller that stops the run. */
export type KabooRunParameters = Parameters<AbstractAgent["runAgent"]>[0] & { abortController?: AbortController };

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
  readonly #agents = new Map<string, Agent>();
  readonly #ledger: ExecutionLedger | undefined;
  readonly #locks: RunLocks;
  readonly #channels = new Map<string, RunChannel>();
  /** The current run's, which `abortRun()` aborts. */
  #controller: AbortController | undefined;
  /**
   * Made when `runAgent()`/`connectAgent()` is called, before the AG-UI client subscribes to the run: a stop
   * in between (the client awaits its subscribers first) would otherwise find no run to abort.
   */
  #next: AbortController | undefined;
  /** The Stop of each run this tab drives, by thread: a run outlives the view that started it. */
  readonly #driving = new Map<string, AbortController>();
  readonly #failures = new Map<string, RunFailure | undefined>();

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
    let agent = this.#agents.get(threadId);
    if (!agent) {
      agent = source(threadId);
      this.#agents.set(threadId, agent);
    }
    return agent;
  }

  /**
   * How this thread's last run failed (`RUN_ERROR` code and message), as it happened here or as the
   * thread's record kept it (read by `connectAgent()`); `undefined` once a run ends well.
   */
  get runFailure(): RunFailure | undefined {
    return this.#failures.get(this.threadId);
  }

  override run(input: RunAgentInput): Observable<BaseEvent> {
    return this.#observe((stop) => this.#runEvents(input, stop));
  }

  /**
   * Restores the thread after a reload: replays its stored snapshot (messages, state, open
   * interrupts), or continues its unfinished run from the last checkpoint, or, while another tab
   * drives the run, passes on that tab's events live (and takes the run over if that tab dies).
   */
  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    return this.#observe((stop, view) => this.#connectEvents(input, stop, view));
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
    return this.#starting(parameters, () => super.connectAgent(parameters, subscriber));
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
    return this.#starting(parameters, () => super.runAgent(parameters, subscriber));
  }

  /**
   * Makes the Stop of the run or connect `started` begins (before the client subscribes to it), and forgets it
   * if it was never taken (the client refused to start: open questions left unanswered).
   */
  #starting<T>(parameters: KabooRunParameters | undefined, start: () => Promise<T>): Promise<T> {
    const stop = parameters?.abortController ?? new AbortController();
    this.#next = stop;
    return start().finally(() => {
      if (this.#next === stop) this.#next = undefined;
    });
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
    this.#next?.abort();
    this.#controller?.abort();
    this.#driving.get(this.threadId)?.abort();
    super.abortRun();
  }

  /** Human-in-the-loop support: approvals, approve-with-edits and interrupts. */
  override async getCapabilities(): Promise<AgentCapabilities> {
    return {
      humanInTheLoop: { supported: true, approvals: true, approveWithEdits: true, interrupts: true },
      state: { snapshots: true, deltas: true },
    } as AgentCapabilities;
  }

  /**
   * The events of a run or a connect, for one subscriber. `stop` is the Stop (`abortRun()`, the caller's
   * `abortController`); `view` also ends when the subscriber leaves. A run outlives its view: a subscriber that
   * leaves (`detachActiveRun()`, which CopilotKit calls when the person opens another thread) stops watching, and
   * the run this tab drives goes on to its end, checkpointed; `connectAgent()` follows it again.
   */
  #observe(events: (stop: AbortController, view: AbortSignal) => AsyncGenerator<BaseEvent>): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const stop = this.#next ?? new AbortController();
      this.#next = undefined;
      this.#controller = stop;
      const view = new AbortController();
      const leave = () => view.abort(stop.signal.reason);
      if (stop.signal.aborted) leave();
      else stop.signal.addEventListener("abort", leave, { once: true });
      const done = () => {
        stop.signal.removeEventListener("abort", leave);
        if (this.#controller === stop) this.#controller = undefined;
      };
      (async () => {
        for await (const event of events(stop, view.signal)) subscriber.next(event);
        subscriber.complete();
      })()
        .catch((error: unknown) => subscriber.error(error))
        .finally(() => stop.signal.removeEventListener("abort", leave));
      return () => {
        view.abort();
        done();
      };
    });
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
    this.#driving.set(input.threadId, stop);
    try {
      const stored = await this.#config.sessionStore?.load(input.threadId);
      if (stored?.run?.status === "running") {
        yield runStarted(input);
        yield runError(
          new RunInProgressError(
            "This thread has an unfinished run (its page went away); connectAgent() continues it.",
          ),
        );
        return;
      }
      // A resume that answers none of the questions the stored snapshot holds open is spent (another
      // tab answered them and the run went on).
      const stale = spentElsewhere(answersOf(input), stored)
        ? new StaleThreadError(
            "This tab's view of the thread is out of date (it went on elsewhere); connectAgent() shows it as it is.",
          )
        : undefined;
      // The stored transcript is the thread's history: a run that does not continue it (a stale
      // tab's new message, rewritten messages) is refused before anything runs or is saved.
      const messages = stale ?? checkedMessages(input, stored);
      if (!Array.isArray(messages)) {
        yield runStarted(input);
        yield runError(messages);
        return;
      }
      yield* this.#drive({ ...input, messages }, { asked: stored?.interrupts ?? [], continueRun: false }, stop);
    } finally {
      if (this.#driving.get(input.threadId) === stop) this.#driving.delete(input.threadId);
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
          this.#failures.set(input.threadId, failure);
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
    this.#failures.set(input.threadId, snapshot?.run?.status === "failed" ? snapshot.run.error : undefined);
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
    if (typeof source === "function") this.#agents.delete(input.threadId);
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
      this.#failures.set(input.threadId, { code: "RUN_FAILED", message: describe(error) });
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
    this.#driving.set(input.threadId, stop);
    try {
      yield* this.#events(input, o.continueRun, recorder, stop.signal, (event) => {
        open.note(event);
        channel.post({ runId: input.runId, event });
      });
    } finally {
      unlisten();
      if (this.#driving.get(input.threadId) === stop) this.#driving.delete(input.threadId);
    }
  }

  /** The run's events, each saved where it ends the run and told to the other tabs (`tell`). */
  async *#events(
    input: RunAgentInput,
    continueRun: boolean,
    recorder: RunRecorder,
    signal: AbortSignal,
    tell: (event: BaseEvent) => void,
  ): AsyncGenerator<BaseEvent> {
    const store = this.#config.sessionStore;
    let messages: AguiMessage[] | undefined;
    let state: Record<string, unknown> | undefined;
    for await (const event of runAgui({
      agent: this.runnerFor(input.threadId),
      input,
      grantStore: this.#config.grantStore,
      clientToolHandlers: this.#config.clientToolHandlers,
      signal,
      ledger: this.#ledger,
      audit: this.#config.audit,
      principal: typeof this.#config.principal === "function" ? this.#config.principal() : this.#config.principal,
      prepare: this.#config.prepare,
      continueRun,
      onCheckpoint: store ? (checkpoint) => recorder.step(checkpoint) : undefined,
    })) {
      if (event.type === EventType.MESSAGES_SNAPSHOT) messages = event.messages;
      if (event.type === EventType.STATE_SNAPSHOT) state = event.snapshot as Record<string, unknown>;
      // Saved before the front end hears the run ended, so a reload right after sees it. A save that
      // fails leaves the last checkpoint: a reload continues from there (the ledger replays the calls).
      if (event.type === EventType.RUN_FINISHED) {
        this.#failures.set(input.threadId, undefined);
        const interrupts = event.outcome?.type === "interrupt" ? event.outcome.interrupts : [];
        const finalState = state ?? (input.state as Record<string, unknown>);
        await recorder.finish(messages ?? input.messages, finalState, interrupts).catch(warn);
      }
      if (event.type === EventType.RUN_ERROR) {
        const failure = { code: event.code ?? "RUN_FAILED", message: event.message };
        this.#failures.set(input.threadId, failure);
        await recorder.fail(failure, { ...(messages ? { messages } : {}), ...(state ? { state } : {}) }).catch(warn);
      }
      tell(event);
      yield event;
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
    let channel = this.#channels.get(threadId);
    if (!channel) {
      channel = new RunChannel(threadId);
      this.#channels.set(threadId, channel);
    }
    return channel;
  }
}

function warn(error: unknown): void {
  defaultLogger.warn(`kaboo: the run's end was not saved: ${describe(error)}`);
}
