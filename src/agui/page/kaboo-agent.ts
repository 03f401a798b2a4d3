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
  type RunFinishedOutcome,
  type ToolCallResultEvent,
} from "@ag-ui/core";
import { Observable } from "rxjs";
import type { Agent } from "../../agent/agent.js";
import type { AuditLog } from "../../agent/audit.js";
import type { ExecutionLedger } from "../../agent/ledger.js";
import { IndexedDbExecutionLedger } from "../../agent/indexeddb-ledger.js";
import type { InvocationState } from "../../agent/events.js";
import type { GrantStore } from "../../grants/store.js";
import type { ClientToolHandler } from "../client-tools.js";
import { runAgui } from "../run.js";
import { messagesSnapshot, runFinished, runStarted, stateSnapshot } from "../run-events.js";
import { THREAD_SNAPSHOT_VERSION, type SessionStore } from "./session-store.js";

/** Options of {@link KabooAgent}. */
export interface KabooAgentConfig extends AguiAgentConfig {
  /** The runner agent, or a factory giving each thread its own (recommended: threads never share a transcript). */
  agent: Agent | ((threadId: string) => Agent);
  /** Remembered approvals: sent with every run, and `thread`/`always` answers are recorded. */
  grantStore?: GrantStore;
  /** Keeps each thread's last snapshot so `connectAgent()` can restore it after a reload. */
  sessionStore?: SessionStore;
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
  /** Browser tools the page runs itself, by name. */
  clientToolHandlers?: Record<string, ClientToolHandler>;
  /** Extra per-run setup of `invocationState`. */
  prepare?: (invocationState: InvocationState) => void | Promise<void>;
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
 * run. With a `sessionStore`, each finished call is also saved as its result arrives, so a reload
 * shows the result instead of asking again.
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
  #controller: AbortController | undefined;

  constructor(config: KabooAgentConfig) {
    super(config);
    this.#config = config;
    // Shared by every thread and tab of the page; keys carry the thread. Where there is no
    // IndexedDB (a test in Node), each runner agent keeps its own memory ledger.
    this.#ledger =
      config.ledger === null
        ? undefined
        : (config.ledger ?? (typeof indexedDB === "undefined" ? undefined : new IndexedDbExecutionLedger()));
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

  override run(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const controller = new AbortController();
      this.#controller = controller;
      (async () => {
        // Calls finished in this run: saved with their result at once, their questions withdrawn.
        const completed = new Set<string>();
        let messages: AguiMessage[] | undefined;
        let state: Record<string, unknown> | undefined;
        let interrupts: AguiInterrupt[] = [];
        for await (const event of runAgui({
          agent: this.runnerFor(input.threadId),
          input,
          grantStore: this.#config.grantStore,
          clientToolHandlers: this.#config.clientToolHandlers,
          signal: controller.signal,
          ledger: this.#ledger,
          audit: this.#config.audit,
          prepare: this.#config.prepare,
        })) {
          if (event.type === EventType.TOOL_CALL_RESULT) {
            completed.add(event.toolCallId);
            await this.#saveCompleted(input, completed, event);
          }
          if (event.type === EventType.MESSAGES_SNAPSHOT) messages = event.messages;
          if (event.type === EventType.STATE_SNAPSHOT) state = event.snapshot as Record<string, unknown>;
          if (event.type === EventType.RUN_FINISHED) {
            interrupts = event.outcome?.type === "interrupt" ? event.outcome.interrupts : [];
            // Saved before the front end hears the run ended, so a reload right after sees it.
            if (messages && this.#config.sessionStore) {
              await this.#config.sessionStore.save({
                version: THREAD_SNAPSHOT_VERSION,
                threadId: input.threadId,
                messages,
                state: state ?? {},
                interrupts,
                savedAt: Date.now(),
              });
            }
          }
          subscriber.next(event);
        }
        subscriber.complete();
      })().catch((error: unknown) => subscriber.error(error));
      return () => controller.abort();
    });
  }

  /** Replays the thread's stored snapshot (messages, state, open interrupts) after a reload. */
  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      (async () => {
        const snapshot = await this.#config.sessionStore?.load(input.threadId);
        const { threadId, runId } = input;
        const now = Date.now();
        subscriber.next(runStarted({ threadId, runId }, now));
        if (snapshot) {
          subscriber.next(stateSnapshot(snapshot.state, now));
          subscriber.next(messagesSnapshot(snapshot.messages, now));
        }
        const outcome: RunFinishedOutcome = snapshot?.interrupts.length
          ? { type: "interrupt", interrupts: snapshot.interrupts }
          : { type: "success" };
        subscriber.next(runFinished({ threadId, runId }, outcome, now));
        subscriber.complete();
      })().catch((error: unknown) => subscriber.error(error));
    });
  }

  override abortRun(): void {
    this.#controller?.abort();
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
   * Saves a finished call at once: a reload before the run ends then shows its result and no longer
   * offers its approval (which could only run it again).
   */
  async #saveCompleted(input: RunAgentInput, completed: Set<string>, result: ToolCallResultEvent): Promise<void> {
    const store = this.#config.sessionStore;
    if (!store) return;
    const stored = await store.load(input.threadId);
    const messages = stored?.messages ?? input.messages;
    const toolMessage: AguiMessage = {
      id: result.messageId,
      role: "tool",
      toolCallId: result.toolCallId,
      content: result.content,
    };
    await store.save({
      version: THREAD_SNAPSHOT_VERSION,
      threadId: input.threadId,
      messages: messages.some((m) => m.role === "tool" && m.toolCallId === result.toolCallId)
        ? messages
        : [...messages, toolMessage],
      state: stored?.state ?? (input.state as Record<string, unknown> | undefined) ?? {},
      interrupts: (stored?.interrupts ?? []).filter((i) => i.toolCallId === undefined || !completed.has(i.toolCallId)),
      savedAt: Date.now(),
    });
  }
}
