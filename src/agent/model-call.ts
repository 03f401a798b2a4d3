/**
 * One model call: events, middleware, streaming, assembling the assistant message, retries.
 *
 * @module
 */
import { MaxModelRetriesError } from "../errors.js";
import type { Model, ModelStreamOptions, Usage } from "./model.js";
import type { Agent } from "./agent.js";
import { assembleResponse, type ModelResponse } from "./assemble-response.js";
import { AfterModelCallEvent, BeforeModelCallEvent, type InvocationState } from "./events.js";
import type { Message } from "./messages/messages.js";
import type { AgentMetrics } from "./metrics.js";
import type { AgentStreamEvent } from "./stream-events.js";
import { mediaBytes, withinMediaBudget } from "./messages/media-budget.js";
import { MessageSums } from "./messages/message-sums.js";
import { messageChars, transcriptChars } from "./messages/transcript-size.js";

/** Options of {@link callModel}. */
export interface CallModelOptions {
  agent: Agent;
  model: Model;
  invocationState: InvocationState;
  metrics: AgentMetrics;
  callIndex: number;
  maxRetries: number;
  /** Bytes of media the request may carry, newest first. Default 16 MiB. */
  maxMediaBytes?: number | undefined;
  signal: AbortSignal | undefined;
  emit: (event: AgentStreamEvent) => void;
}

/**
 * Calls the model once, honouring `AfterModelCallEvent.retry` up to `maxRetries` times.
 * @returns The response, or a partial one when the signal aborted the stream.
 */
export async function callModel(o: CallModelOptions): Promise<ModelResponse | { partial: true; message: Message }> {
  const { agent, invocationState, metrics } = o;
  for (let attempt = 1; ; attempt++) {
    const sums = sumsOf(agent);
    // A hook stopped the run (the edge's Stop at its safe point): the model is not asked at all.
    if (agent.hooks.has(BeforeModelCallEvent) && (await stoppedBefore(o, sums)))
      return { partial: true, message: { role: "assistant", content: [] } };
    const input = await agent.modelInput.apply(
      // A shallow copy of the array: middleware may add, drop or replace messages without touching the
      // transcript, but must copy a message before changing it (see ModelInputMiddleware). A deep copy
      // per call costs O(transcript) and defeats caches keyed by message identity (ContextHook).
      { messages: agent.messages.slice(), systemPrompt: agent.systemPrompt, toolSpecs: agent.toolSpecs() },
      { agent, invocationState, callIndex: o.callIndex },
    );
    metrics.modelCalls++;
    // What this attempt adds to the run's usage is the event's `usage` (a tracing hook's per-call tokens).
    const { inputTokens: in0, outputTokens: out0, totalTokens: total0 } = metrics.usage;
    const started = performance.now();
    const { response, error } = await streamOnce(o, input, sums.media);
    if (o.signal?.aborted)
      return response?.partial ? response : { partial: true, message: { role: "assistant", content: [] } };
    if (response && !response.partial) metrics.modelLatencyMs.push(performance.now() - started);
    const full = response && !response.partial ? (response as ModelResponse) : undefined;
    const after = new AfterModelCallEvent(
      agent,
      invocationState,
      full ? { message: full.message, stopReason: full.stopReason } : undefined,
      error,
      attempt,
      usedSince(metrics.usage, in0, out0, total0),
    );
    const pending = agent.hooks.dispatch(after);
    if (pending !== after) await pending;
    if (after.retry) {
      if (attempt > o.maxRetries) throw new MaxModelRetriesError(attempt, error ?? "a hook asked for a retry");
      continue;
    }
    if (error !== undefined || !full) throw error;
    metrics.cycles++;
    return full;
  }
}

/** Dispatches `BeforeModelCallEvent` (a hook listens). @returns Whether a hook stopped the run. */
async function stoppedBefore(o: CallModelOptions, sums: { chars: MessageSums }): Promise<boolean> {
  const { agent } = o;
  // The projected tokens are estimated only if a hook reads them: most runs never do, and a long transcript
  // makes it the costliest thing in a cycle even with cached message sizes.
  const projected = () =>
    Math.ceil(((agent.systemPrompt?.length ?? 0) + transcriptChars(agent.messages, sums.chars)) / 4);
  const before = new BeforeModelCallEvent(agent, o.invocationState, projected);
  const pending = agent.hooks.dispatch(before);
  if (pending !== before) await pending;
  return o.signal?.aborted === true;
}

/** One attempt's stream, assembled: the response (partial when the signal aborted it), or the error it failed with. */
async function streamOnce(
  o: CallModelOptions,
  input: { messages: Message[]; systemPrompt?: string | undefined; toolSpecs: ModelStreamOptions["toolSpecs"] },
  media: MessageSums,
): Promise<{ response?: Awaited<ReturnType<typeof assembleResponse>>; error?: unknown }> {
  const options: ModelStreamOptions = { toolSpecs: input.toolSpecs };
  if (input.systemPrompt !== undefined) options.systemPrompt = input.systemPrompt;
  if (o.signal) options.signal = o.signal;
  try {
    // After the middleware: whatever ContextHook cleared no longer counts against the budget.
    const sent = withinMediaBudget(input.messages, o.maxMediaBytes, media);
    const response = await assembleResponse(
      o.model.stream(Array.isArray(sent) ? sent : await sent, options),
      (event) => o.emit({ type: "model", event }),
      o.metrics,
      o.signal,
      () => transcriptCallIds(o.agent.messages),
    );
    return { response };
  } catch (error) {
    return { error };
  }
}

/** The usage added to `now` since it read `in0`/`out0`/`total0`; `undefined` when none was reported. */
function usedSince(now: Usage, in0: number, out0: number, total0: number): Usage | undefined {
  if (now.inputTokens === in0 && now.outputTokens === out0 && now.totalTokens === total0) return undefined;
  return {
    inputTokens: now.inputTokens - in0,
    outputTokens: now.outputTokens - out0,
    totalTokens: now.totalTokens - total0,
  };
}

/** Per agent: running sums of message sizes, so each model call measures only the messages added since the last. */
const sizeSums = new WeakMap<Agent, { chars: MessageSums; media: MessageSums }>();

function sumsOf(agent: Agent): { chars: MessageSums; media: MessageSums } {
  let sums = sizeSums.get(agent);
  if (!sums) {
    sums = { chars: new MessageSums(messageChars), media: new MessageSums(mediaBytes) };
    sizeSums.set(agent, sums);
  }
  return sums;
}

/** Per transcript array: how far it was read, its last message then, and the call ids found. */
const callIdsRead = new WeakMap<readonly Message[], { count: number; last: Message | undefined; ids: Set<string> }>();

/**
 * Ids of the calls a transcript already holds. A tool loop appends two messages per cycle, so the ids
 * found before are kept per transcript array and only new messages are read (building the set anew each
 * cycle was a fifth of a 1,000-cycle loop's time). A transcript that shrank, or whose last message read
 * before is no longer in its place (cut, trimmed, replaced), is read again in full.
 */
function transcriptCallIds(messages: readonly Message[]): ReadonlySet<string> {
  let read = callIdsRead.get(messages);
  if (!read || messages.length < read.count || (read.count > 0 && messages[read.count - 1] !== read.last)) {
    read = { count: 0, last: undefined, ids: new Set() };
    callIdsRead.set(messages, read);
  }
  for (let i = read.count; i < messages.length; i++)
    for (const b of (messages[i] as Message).content) if (b.type === "toolUse") read.ids.add(b.toolUseId);
  read.count = messages.length;
  read.last = messages.at(-1);
  return read.ids;
}
