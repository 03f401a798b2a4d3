/**
 * One invocation's shared state, and the interrupt-state bookkeeping around a failed run.
 *
 * @module
 */
import type { Agent } from "./agent.js";
import { MessageAddedEvent, type InvocationState } from "./events.js";
import type { InterruptState } from "./interrupts/interrupt.js";
import type { LoopSettings } from "./loop.js";
import type { Message } from "./messages/messages.js";
import { emptyMetrics } from "./metrics.js";
import { writePausedBatch, type PausedBatch } from "./interrupts/paused-batch.js";
import type { AgentResult, StopReason } from "./result.js";
import type { AgentStreamEvent } from "./stream-events.js";

/** One invocation's shared state, handed from step to step. */
export class Invocation {
  readonly metrics = emptyMetrics();
  readonly started = performance.now();
  /** The assistant message the result reports. */
  lastAssistant: Message = { role: "assistant", content: [] };
  /**
   * Set once a batch is in the transcript: from then on the paused state it answered is spent, and a
   * later failure (the next model call, say) must not bring it back — a retry would run the calls again.
   */
  committed = false;
  /** Whether the batch in hand is the paused one this run resumes (not one the model just asked for). */
  resumedBatch: boolean;
  /** A failed resume keeps its pause, holding the results of the calls that finished before the failure. */
  keptBatch: PausedBatch | undefined;

  readonly agent: Agent;
  readonly invocationState: InvocationState;
  readonly signal: AbortSignal;
  readonly settings: LoopSettings;
  readonly emit: (e: AgentStreamEvent) => void;
  /**
   * In a streamed run, the stream's reader: `caughtUp()` gives it a chance to keep pace, `read(signal)`
   * waits until it has handled every event so far (see `EventQueue`).
   */
  reader: StreamReader | undefined;

  constructor(o: {
    agent: Agent;
    invocationState: InvocationState;
    signal: AbortSignal;
    settings: LoopSettings;
    emit: (e: AgentStreamEvent) => void;
    /** Whether the run resumes a paused batch. */
    resuming: boolean;
  }) {
    this.agent = o.agent;
    this.invocationState = o.invocationState;
    this.signal = o.signal;
    this.settings = o.settings;
    this.emit = o.emit;
    this.resumedBatch = o.resuming;
  }

  /** The run's result for `stopReason`, with its duration. */
  finish(stopReason: StopReason): AgentResult {
    this.metrics.durationMs = performance.now() - this.started;
    return {
      stopReason,
      message: this.lastAssistant,
      interrupts: stopReason === "interrupt" ? this.agent.interruptState.pending() : [],
      metrics: this.metrics,
    };
  }

  /**
   * Adds messages to the transcript. A tool exchange enters whole before any MessageAdded hook runs:
   * a hook that throws on the first message must not leave a toolUse without its toolResult.
   */
  async append(...messages: Message[]): Promise<void> {
    for (const message of messages) {
      this.agent.messages.push(message);
      this.emit({ type: "message", message });
    }
    const hooks = this.agent.hooks;
    if (!hooks.has(MessageAddedEvent)) return;
    for (const message of messages) {
      const added = new MessageAddedEvent(this.agent, this.invocationState, message);
      const pending = hooks.dispatch(added);
      if (pending !== added) await pending;
    }
  }
}

/** What the loop may ask of a streamed run's reader (the stream's `EventQueue`). */
export interface StreamReader {
  caughtUp?(): Promise<void> | undefined;
  read?(signal: AbortSignal): Promise<void> | undefined;
}

/** The parts of the interrupt state a failed run puts back. */
export type SavedInterruptState = Pick<InterruptState, "activated" | "interrupts" | "context">;

/**
 * A copy of the interrupt state as the run found it. A run that fails leaves it so (answers of a
 * resume included, so the resume can be retried): interrupts raised by a failed run were never shown.
 */
export function saveInterruptState(agent: Agent): SavedInterruptState {
  const state = agent.interruptState;
  return {
    activated: state.activated,
    interrupts: new Map([...state.interrupts].map(([id, i]) => [id, { ...i }])),
    context: state.context,
  };
}

/**
 * Puts the interrupt state back after a failed run: cleared when a batch of this run already
 * committed, else as saved (with the kept batch of a failed resume, if any).
 */
export function restoreAfterFailure(
  agent: Agent,
  saved: SavedInterruptState,
  committed: boolean,
  kept?: PausedBatch,
): void {
  const state = agent.interruptState;
  if (committed) {
    // The pause this run answered is spent, and a failed run shows no new questions: nothing is pending.
    state.clear();
    return;
  }
  state.activated = saved.activated;
  state.interrupts = saved.interrupts;
  state.context = saved.context;
  if (kept) writePausedBatch(state, kept);
}
