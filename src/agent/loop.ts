/**
 * The event loop of one invocation:
 * BeforeInvocation → [BeforeModelCall → model → AfterModelCall → tool batch → MessageAdded]… → AfterInvocation.
 *
 * @module
 */
import { failedBatch } from "./tools/failed-batch.js";
import { interruptCallId } from "./interrupts/interrupt-id.js";
import type { Agent } from "./agent.js";
import { AfterInvocationEvent, BeforeInvocationEvent, type InvocationState } from "./events.js";
import type { InterruptResponse, InterruptState } from "./interrupts/interrupt.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "./messages/messages.js";
import { OUTCOME_UNKNOWN } from "./ledger/outcome-answer.js";
import { readPausedBatch, writePausedBatch } from "./interrupts/paused-batch.js";
import { runContext } from "./run-context.js";
import { Invocation, restoreAfterFailure, saveInterruptState, type StreamReader } from "./invocation.js";
import { callModel } from "./model-call.js";
import type { AgentResult, StopReason } from "./result.js";
import type { AgentStreamEvent } from "./stream-events.js";
import { BatchFailure, runToolBatch, type BatchOutcome, type ToolExecutor } from "./tools/tool-executor.js";
import { errorResult } from "./tools/tools.js";

const CANCELLED_BEFORE_RUN = "The run was cancelled before this tool ran.";

/** Loop settings taken from the agent. */
export interface LoopSettings {
  executor: ToolExecutor;
  maxModelRetries: number;
  maxToolRetries: number;
  /** Bytes of media one model request may carry. */
  maxMediaBytes: number;
  /** Ledger settings of the agent: claim hinted tools too, and the lease. */
  ledger?: { recordAll: boolean; leaseMs?: number | undefined };
}

/** What the loop is asked to do. */
export type LoopInput = { kind: "messages"; messages: Message[] } | { kind: "resume"; responses: InterruptResponse[] };

/** A batch in flight: the assistant message whose calls run, and the results already produced. */
type Pending = { message: Message; done: ToolResultBlock[] };

/**
 * Runs one invocation, pushing stream events to `emitQueue`; returns the result.
 * Callers have already validated the input against the interrupt state.
 */
export async function runLoop(
  agent: Agent,
  input: LoopInput,
  invocationState: InvocationState,
  signal: AbortSignal,
  settings: LoopSettings,
  emitQueue: StreamReader & { push(e: AgentStreamEvent): void },
): Promise<AgentResult> {
  const run = new Invocation({
    agent,
    invocationState,
    signal,
    settings,
    emit: (e) => emitQueue.push(e),
    resuming: input.kind === "resume",
  });
  run.reader = emitQueue;
  const saved = saveInterruptState(agent);
  let result: AgentResult;
  try {
    const messages = input.kind === "messages" ? input.messages : [];
    await agent.hooks.invoke(new BeforeInvocationEvent(agent, invocationState, input.kind === "resume", messages));
    result = await cycles(run, input);
  } catch (error) {
    restoreAfterFailure(agent, saved, run.committed, run.keptBatch);
    run.metrics.durationMs = performance.now() - run.started;
    await agent.hooks.invoke(new AfterInvocationEvent(agent, invocationState, undefined, error));
    throw error;
  }
  await agent.hooks.invoke(new AfterInvocationEvent(agent, invocationState, result));
  run.emit({ type: "result", result });
  return result;
}

/** Model calls and tool batches until the run stops, pauses or is cancelled. */
async function cycles(run: Invocation, input: LoopInput): Promise<AgentResult> {
  let pending: Pending | undefined;
  let stopAfterBatch = false;
  if (input.kind === "resume") {
    const paused = readPausedBatch(run.agent.interruptState);
    pending = { message: paused.toolUseMessage, done: paused.toolResults };
    stopAfterBatch = paused.stopLoop === true;
  } else {
    for (const m of input.messages) await run.append(m);
  }
  for (let callIndex = 0; ; ) {
    if (run.signal.aborted) {
      if (pending) await closeUnrunBatch(run, pending);
      return run.finish("cancelled");
    }
    if (!pending) {
      const turn = await modelTurn(run, callIndex++);
      if ("stop" in turn) return run.finish(turn.stop);
      pending = turn.pending;
    }
    const stop = await toolBatch(run, pending, stopAfterBatch);
    if (stop) return run.finish(stop);
    pending = undefined;
  }
}

/** Aborted before a resumed batch ran: close the paused calls rather than keep a pause nobody can see. */
async function closeUnrunBatch(run: Invocation, pending: Pending): Promise<void> {
  const done = new Map(pending.done.map((r) => [r.toolUseId, r]));
  const calls = pending.message.content.filter((b): b is ToolUseBlock => b.type === "toolUse");
  run.agent.interruptState.clear();
  run.lastAssistant = pending.message;
  await run.append(pending.message, {
    role: "user",
    content: packed(calls, (c) => done.get(c.toolUseId) ?? errorResult(c.toolUseId, CANCELLED_BEFORE_RUN)),
  });
}

/** One model call: the reply ends the run, or its tool calls become the next batch. */
async function modelTurn(run: Invocation, callIndex: number): Promise<{ stop: StopReason } | { pending: Pending }> {
  const response = await callModel({
    agent: run.agent,
    model: run.agent.model,
    invocationState: run.invocationState,
    metrics: run.metrics,
    callIndex,
    maxRetries: run.settings.maxModelRetries,
    maxMediaBytes: run.settings.maxMediaBytes,
    signal: run.signal,
    emit: run.emit,
  });
  if ("partial" in response) {
    if (response.message.content.length) {
      run.lastAssistant = response.message;
      await run.append(response.message);
    }
    return { stop: "cancelled" };
  }
  run.lastAssistant = response.message;
  if (response.stopReason !== "toolUse") {
    await run.append(response.message);
    return { stop: response.stopReason };
  }
  return { pending: { message: response.message, done: [] } };
}

/**
 * Runs the batch's unanswered calls. A batch with open questions pauses the run; a complete one
 * joins the transcript.
 * @returns Why the run stops here, or `undefined` to call the model again.
 */
async function toolBatch(run: Invocation, pending: Pending, stopAfterBatch: boolean): Promise<StopReason | undefined> {
  const { agent, signal } = run;
  await checkpointBatch(run, pending, stopAfterBatch);
  const calls = pending.message.content.filter((b): b is ToolUseBlock => b.type === "toolUse");
  const answered = new Set(pending.done.map((r) => r.toolUseId));
  let batch: BatchOutcome;
  try {
    batch = await runToolBatch(
      calls.filter((c) => !answered.has(c.toolUseId)),
      {
        agent,
        invocationState: run.invocationState,
        metrics: run.metrics,
        executor: run.settings.executor,
        maxToolRetries: run.settings.maxToolRetries,
        signal,
        emit: run.emit,
        ...(run.settings.ledger ? { ledger: run.settings.ledger } : {}),
      },
    );
  } catch (error) {
    if (error instanceof BatchFailure) throw await failedBatch(run, pending, error, stopAfterBatch);
    throw error;
  }
  const aborted = signal.aborted;
  const { results, message } = batchRecord(pending, batch, aborted ? agent.interruptState : undefined);
  run.lastAssistant = message;
  // A question left open pauses the batch; in a stopped run only an outcome question is left open.
  if (batch.outcomes.some((o) => o.kind === "interrupted" && !results.has(o.toolUse.toolUseId))) {
    // A stop decided in this batch (StopGuard, MaxToolCallsGuard, a Stop) must survive the pause.
    pauseBatch(run, message, calls, results, batch.stopLoop || stopAfterBatch || aborted);
    return "interrupt";
  }
  agent.interruptState.clear();
  run.committed = true;
  run.resumedBatch = false;
  await run.append(message, {
    role: "user",
    content: packed(calls, (c) => results.get(c.toolUseId) as ToolResultBlock),
  });
  if (signal.aborted) return "cancelled";
  if (batch.stopLoop || stopAfterBatch) return "stopped";
  return undefined;
}

/**
 * Before a batch runs: the stream's reader has seen the model's reply, and a run that checkpoints its batch
 * has saved it (before any call is claimed: a reload continues this batch, never a new one).
 */
async function checkpointBatch(run: Invocation, pending: Pending, stopAfterBatch: boolean): Promise<void> {
  // A stream's reader sees the model's reply before the batch's hooks run (it merges hook side effects,
  // such as published events and state deltas, with the stream in run order). A run that checkpoints
  // its batch waits until the reader has read the reply: the checkpoint must name the message as the
  // reader named it, or a tab watching the run (which gets the checkpoint first) and the run's last
  // snapshot would hold one message under two ids, and the watcher would show it out of order.
  const checkpoint = runContext.batchCheckpoint.find(run.invocationState);
  const reading = checkpoint ? run.reader?.read?.(run.signal) : run.reader?.caughtUp?.();
  if (reading) await reading;
  run.lastAssistant = pending.message;
  if (checkpoint)
    await checkpoint(
      {
        toolUseMessage: pending.message,
        toolResults: [...pending.done],
        ...(stopAfterBatch ? { stopLoop: true } : {}),
      },
      run.agent,
    );
}

/**
 * Pauses the run on a batch with open questions: the batch as far as it got is kept in the interrupt state
 * (with whether the run stops after it), spent questions dropped, and the open ones emitted.
 */
function pauseBatch(
  run: Invocation,
  message: Message,
  calls: readonly ToolUseBlock[],
  results: Map<string, ToolResultBlock>,
  stopLoop: boolean,
): void {
  const state = run.agent.interruptState;
  const aborted = run.signal.aborted;
  writePausedBatch(state, {
    toolUseMessage: message,
    toolResults: calls.flatMap((c) => results.get(c.toolUseId) ?? []),
    stopLoop,
  });
  // Interrupts of calls that have now completed (answered, or cancelled by a Stop) are spent; keep only live ones.
  for (const [id, i] of state.interrupts)
    if ((i.response !== undefined || aborted) && completedBy(id, results)) state.interrupts.delete(id);
  run.emit({ type: "interrupt", interrupts: state.pending() });
}

/**
 * The batch's results by call, and its assistant message with each call as it actually ran.
 * `stopped`: the run's interrupt state when its signal aborted (a Stop).
 */
function batchRecord(
  pending: Pending,
  batch: BatchOutcome,
  stopped: InterruptState | undefined,
): { results: Map<string, ToolResultBlock>; message: Message } {
  const results = new Map(pending.done.map((r) => [r.toolUseId, r]));
  const ran = new Map<string, ToolUseBlock>();
  for (const o of batch.outcomes) {
    if (o.kind === "done") {
      results.set(o.toolUse.toolUseId, o.result);
      ran.set(o.toolUse.toolUseId, o.toolUse);
    } else if (stopped && !asksOutcome(stopped, o.toolUse.toolUseId)) {
      // A cancelled run does not pause: its unasked questions are answered with a cancellation. Not
      // the question whether a call went through (it may have run): that one stays open.
      results.set(o.toolUse.toolUseId, errorResult(o.toolUse.toolUseId, CANCELLED_BEFORE_RUN));
    }
  }
  // The transcript records each call as it actually ran (hooks may have rewritten it).
  const message: Message = {
    role: "assistant",
    content: packed(pending.message.content, (b) => (b.type === "toolUse" ? (ran.get(b.toolUseId) ?? b) : b)),
  };
  // Keep the id the front end already knows this message by (AG-UI snapshots match on it).
  if (pending.message.id !== undefined) message.id = pending.message.id;
  return { results, message };
}

/** Whether the call's open question is whether it went through (its claim's outcome is unknown). */
function asksOutcome(state: InterruptState, toolUseId: string): boolean {
  for (const question of state.interrupts.values())
    if (
      question.name === OUTCOME_UNKNOWN &&
      question.response === undefined &&
      interruptCallId(question.id) === toolUseId
    )
      return true;
  return false;
}

function completedBy(interruptId: string, results: Map<string, ToolResultBlock>): boolean {
  const call = interruptCallId(interruptId);
  return call !== undefined && results.has(call);
}

/**
 * `items.map(fn)` into a packed array. Optimised code makes holey arrays with `map`, so a long run's
 * transcript came to hold content arrays of two shapes, and every walk over it (the media budget, the
 * token estimate, ContextHook) fell into a deoptimisation loop, hundreds of them in one run.
 */
function packed<T, U>(items: readonly T[], fn: (item: T) => U): U[] {
  const out: U[] = [];
  for (const item of items) out.push(fn(item));
  return out;
}
