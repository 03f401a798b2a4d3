/**
 * The event loop of one invocation:
 * BeforeInvocation → [BeforeModelCall → model → AfterModelCall → tool batch → MessageAdded]… → AfterInvocation.
 *
 * @module
 */
import { interruptCallId } from "./interrupt-id.js";
import type { Agent } from "./agent.js";
import { AfterInvocationEvent, BeforeInvocationEvent, MessageAddedEvent, type InvocationState } from "./events.js";
import type { InterruptResponse } from "./interrupt.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "./messages.js";
import { emptyMetrics } from "./metrics.js";
import { readPausedBatch, writePausedBatch } from "./paused-batch.js";
import { callModel } from "./model-call.js";
import type { AgentResult, StopReason } from "./result.js";
import type { AgentStreamEvent } from "./stream-events.js";
import { runToolBatch, type ToolExecutor } from "./tool-executor.js";
import { errorResult } from "./tools.js";

const CANCELLED_BEFORE_RUN = "The run was cancelled before this tool ran.";

/** Loop settings taken from the agent. */
export interface LoopSettings {
  executor: ToolExecutor;
  maxModelRetries: number;
  maxToolRetries: number;
}

/** What the loop is asked to do. */
export type LoopInput = { kind: "messages"; messages: Message[] } | { kind: "resume"; responses: InterruptResponse[] };

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
  emitQueue: { push(e: AgentStreamEvent): void },
): Promise<AgentResult> {
  const metrics = emptyMetrics();
  const started = performance.now();
  const emit = (e: AgentStreamEvent) => emitQueue.push(e);
  const resuming = input.kind === "resume";
  let lastAssistant: Message = { role: "assistant", content: [] };
  const finish = (stopReason: StopReason): AgentResult => {
    metrics.durationMs = performance.now() - started;
    return {
      stopReason,
      message: lastAssistant,
      interrupts: stopReason === "interrupt" ? agent.interruptState.pending() : [],
      metrics,
    };
  };
  const append = async (message: Message) => {
    agent.messages.push(message);
    emit({ type: "message", message });
    await agent.hooks.invoke(new MessageAddedEvent(agent, invocationState, message));
  };

  // A run that fails leaves the interrupt state as it found it (answers of a resume included, so
  // the resume can be retried): interrupts raised by a failed run were never shown to anyone.
  const savedState = agent.interruptState;
  const saved = {
    activated: savedState.activated,
    interrupts: new Map([...savedState.interrupts].map(([id, i]) => [id, { ...i }])),
    context: savedState.context,
  };
  // Set once a batch is in the transcript: from then on the paused state it answered is spent, and a
  // later failure (the next model call, say) must not bring it back — a retry would run the calls again.
  let committed = false;
  let result: AgentResult;
  try {
    await agent.hooks.invoke(
      new BeforeInvocationEvent(agent, invocationState, resuming, input.kind === "messages" ? input.messages : []),
    );
    result = await (async (): Promise<AgentResult> => {
      let pending: { message: Message; done: ToolResultBlock[] } | undefined;
      let stopAfterBatch = false;
      if (input.kind === "resume") {
        const paused = readPausedBatch(agent.interruptState);
        pending = { message: paused.toolUseMessage, done: paused.toolResults };
        stopAfterBatch = paused.stopLoop === true;
      } else {
        for (const m of input.messages) await append(m);
      }
      for (let callIndex = 0; ; ) {
        if (signal.aborted) {
          if (pending) {
            // Aborted before a resumed batch ran: close the paused calls rather than keep a pause nobody can see.
            const done = new Map(pending.done.map((r) => [r.toolUseId, r]));
            const calls = pending.message.content.filter((b): b is ToolUseBlock => b.type === "toolUse");
            agent.interruptState.clear();
            lastAssistant = pending.message;
            await append(pending.message);
            await append({
              role: "user",
              content: calls.map((c) => done.get(c.toolUseId) ?? errorResult(c.toolUseId, CANCELLED_BEFORE_RUN)),
            });
          }
          return finish("cancelled");
        }
        if (!pending) {
          const response = await callModel({
            agent,
            model: agent.model,
            invocationState,
            metrics,
            callIndex: callIndex++,
            maxRetries: settings.maxModelRetries,
            signal,
            emit,
          });
          if ("partial" in response) {
            if (response.message.content.length) {
              lastAssistant = response.message;
              await append(response.message);
            }
            return finish("cancelled");
          }
          lastAssistant = response.message;
          if (response.stopReason !== "toolUse") {
            await append(response.message);
            return finish(response.stopReason);
          }
          pending = { message: response.message, done: [] };
        }
        lastAssistant = pending.message;
        const calls = pending.message.content.filter((b): b is ToolUseBlock => b.type === "toolUse");
        const answered = new Set(pending.done.map((r) => r.toolUseId));
        const batch = await runToolBatch(
          calls.filter((c) => !answered.has(c.toolUseId)),
          {
            agent,
            invocationState,
            metrics,
            executor: settings.executor,
            maxToolRetries: settings.maxToolRetries,
            signal,
            emit,
          },
        );
        const results = new Map(pending.done.map((r) => [r.toolUseId, r]));
        const ran = new Map<string, ToolUseBlock>();
        for (const o of batch.outcomes) {
          if (o.kind === "done") {
            results.set(o.toolUse.toolUseId, o.result);
            ran.set(o.toolUse.toolUseId, o.toolUse);
          } else if (signal.aborted) {
            // A cancelled run does not pause: its unasked questions are answered with a cancellation.
            results.set(o.toolUse.toolUseId, errorResult(o.toolUse.toolUseId, CANCELLED_BEFORE_RUN));
          }
        }
        // The transcript records each call as it actually ran (hooks may have rewritten it).
        const message: Message = {
          role: "assistant",
          content: pending.message.content.map((b) => (b.type === "toolUse" ? (ran.get(b.toolUseId) ?? b) : b)),
        };
        // Keep the id the front end already knows this message by (AG-UI snapshots match on it).
        if (pending.message.id !== undefined) message.id = pending.message.id;
        if (!signal.aborted && batch.outcomes.some((o) => o.kind === "interrupted")) {
          const state = agent.interruptState;
          writePausedBatch(state, {
            toolUseMessage: message,
            toolResults: calls.flatMap((c) => results.get(c.toolUseId) ?? []),
            // A stop decided in this batch (StopGuard, MaxToolCallsGuard) must survive the pause.
            stopLoop: batch.stopLoop || stopAfterBatch,
          });
          // Answered interrupts of calls that have now completed are spent; keep only live ones.
          for (const [id, i] of state.interrupts)
            if (i.response !== undefined && completedBy(id, results)) state.interrupts.delete(id);
          lastAssistant = message;
          emit({ type: "interrupt", interrupts: state.pending() });
          return finish("interrupt");
        }
        agent.interruptState.clear();
        committed = true;
        lastAssistant = message;
        await append(message);
        await append({ role: "user", content: calls.map((c) => results.get(c.toolUseId) as ToolResultBlock) });
        pending = undefined;
        if (signal.aborted) return finish("cancelled");
        if (batch.stopLoop || stopAfterBatch) return finish("stopped");
      }
    })();
  } catch (error) {
    const state = agent.interruptState;
    if (committed) {
      // The pause this run answered is spent, and a failed run shows no new questions: nothing is pending.
      state.clear();
    } else {
      state.activated = saved.activated;
      state.interrupts = saved.interrupts;
      state.context = saved.context;
    }
    metrics.durationMs = performance.now() - started;
    await agent.hooks.invoke(new AfterInvocationEvent(agent, invocationState, undefined, error));
    throw error;
  }
  await agent.hooks.invoke(new AfterInvocationEvent(agent, invocationState, result));
  emit({ type: "result", result });
  return result;
}

function completedBy(interruptId: string, results: Map<string, ToolResultBlock>): boolean {
  const call = interruptCallId(interruptId);
  return call !== undefined && results.has(call);
}
