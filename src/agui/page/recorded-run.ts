/**
 * One run driven in the page, recorded: the AG-UI run over the thread's runner, each checkpoint saved
 * in the session store, the run's end (finished, paused or failed) saved before the front end hears it,
 * and every event told to the other tabs.
 *
 * @module
 */
import { EventType, type BaseEvent, type Message as AguiMessage, type RunAgentInput } from "@ag-ui/core";
import type { Agent } from "../../agent/agent.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import { describe } from "../../errors.js";
import { defaultLogger } from "../../logger.js";
import { runAgui } from "../core/run.js";
import type { KabooAgentConfig } from "./config.js";
import type { RunFailure } from "./reattach.js";
import type { RunRecorder } from "./run-record.js";

/** What {@link recordedRun} runs, and where it reports. */
export interface RecordedRunOptions {
  /** The thread's runner agent. */
  runner: Agent;
  input: RunAgentInput;
  config: KabooAgentConfig;
  /** The page's ledger (`undefined`: the runner's own). */
  ledger: ExecutionLedger | undefined;
  /** Continue an unfinished run from its checkpoint (a reload) rather than start one. */
  continueRun: boolean;
  recorder: RunRecorder;
  /** The run's Stop. */
  signal: AbortSignal;
  /** How the run failed, or `undefined` once it ended well. */
  onFailure: (failure: RunFailure | undefined) => void;
  /** Tells one event to the other tabs (and this tab's watchers). */
  tell: (event: BaseEvent) => void;
}

/**
 * The run's events, each saved where it ends the run and told to the other tabs.
 * @param o - See {@link RecordedRunOptions}.
 * @returns The run's AG-UI events.
 */
export async function* recordedRun(o: RecordedRunOptions): AsyncGenerator<BaseEvent> {
  const { input, config, recorder } = o;
  const store = config.sessionStore;
  let messages: AguiMessage[] | undefined;
  let state: Record<string, unknown> | undefined;
  for await (const event of runAgui({
    agent: o.runner,
    input,
    grantStore: config.grantStore,
    clientToolHandlers: config.clientToolHandlers,
    signal: o.signal,
    ledger: o.ledger,
    audit: config.audit,
    principal: typeof config.principal === "function" ? config.principal() : config.principal,
    prepare: config.prepare,
    continueRun: o.continueRun,
    onCheckpoint: store ? (checkpoint) => recorder.step(checkpoint) : undefined,
  })) {
    if (event.type === EventType.MESSAGES_SNAPSHOT) messages = event.messages;
    if (event.type === EventType.STATE_SNAPSHOT) state = event.snapshot as Record<string, unknown>;
    // Saved before the front end hears the run ended, so a reload right after sees it. A save that
    // fails leaves the last checkpoint: a reload continues from there (the ledger replays the calls).
    if (event.type === EventType.RUN_FINISHED) {
      o.onFailure(undefined);
      const interrupts = event.outcome?.type === "interrupt" ? event.outcome.interrupts : [];
      const finalState = state ?? (input.state as Record<string, unknown>);
      await recorder.finish(messages ?? input.messages, finalState, interrupts).catch(warn);
    }
    if (event.type === EventType.RUN_ERROR) {
      const failure = { code: event.code ?? "RUN_FAILED", message: event.message };
      o.onFailure(failure);
      await recorder.fail(failure, { ...(messages ? { messages } : {}), ...(state ? { state } : {}) }).catch(warn);
    }
    o.tell(event);
    yield event;
  }
}

function warn(error: unknown): void {
  defaultLogger.warn(`kaboo: the run's end was not saved: ${describe(error)}`);
}
