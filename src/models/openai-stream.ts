/**
 * Chat-completions SSE chunks → the runner's model events.
 *
 * @module
 */
import { ModelStreamError } from "../errors.js";
import { errorFromFields, readErrorFields } from "./errors.js";
import type { ModelStopReason, ModelStreamEvent } from "../agent/model.js";
import { parseChunk, toUsage, type Delta } from "./openai-chunk.js";
import type { EventSourceMessage, StreamDecoder } from "./sse.js";

/**
 * Maps a chat-completions `finish_reason` to the runner's stop reason.
 * @param reason - `stop`, `tool_calls`, `function_call`, `length`, `content_filter`, or another server's word.
 * @returns The stop reason; unknown words give `endTurn`.
 */
export function openAIStopReason(reason: string): ModelStopReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "toolUse";
    case "length":
      return "maxTokens";
    case "content_filter":
      return "contentFiltered";
    default:
      return "endTurn";
  }
}

interface PendingCall {
  block: number | undefined;
  id: string | undefined;
  name: string | undefined;
  /** Argument fragments that arrived before the call's name. */
  early: string;
}

/**
 * Turns the SSE events of a chat-completions stream into model events.
 *
 * Emits `messageStop` only when the server sent a `finish_reason`: a stream that
 * ends early is left unfinished so the runner reports it. One decoder per response.
 *
 * @example
 * ```ts
 * const events = decodeSse(response.body, new OpenAIStreamDecoder(), signal);
 * ```
 */
export class OpenAIStreamDecoder implements StreamDecoder<ModelStreamEvent> {
  #finished = false;
  #next = 0;
  #text: number | undefined;
  #reasoning: number | undefined;
  #stopped = false;
  readonly #calls = new Map<number, PendingCall>();
  #unindexed: number | undefined;
  readonly #newId: () => string;

  /** @param newId - Makes a tool-call id for servers that send none. Default `call_` + `crypto.randomUUID()`. */
  constructor(newId: () => string = () => `call_${crypto.randomUUID()}`) {
    this.#newId = newId;
  }

  /** Emits `messageStart`: chat completions has no event of its own for it. */
  start(out: ModelStreamEvent[]): void {
    out.push({ type: "messageStart", role: "assistant" });
  }

  /** Whether `[DONE]` arrived. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Decodes one SSE event.
   * @param event - The SSE event.
   * @param out - Receives the model events.
   * @throws ModelStreamError for a chunk that is not JSON or not chunk-shaped;
   *   ModelError / ContextWindowOverflowError for an error object in the stream.
   */
  push(event: EventSourceMessage, out: ModelStreamEvent[]): void {
    const data = event.data;
    if (data === "[DONE]") {
      this.#finished = true;
      return;
    }
    if (data === "" || data.trim() === "") return;
    const chunk = parseChunk(data);
    if ((chunk.error !== undefined && chunk.error !== null) || event.event === "error") {
      throw errorFromFields("openai", readErrorFields(chunk), { body: chunk });
    }
    const choices = chunk.choices;
    if (choices && !this.#stopped) {
      for (let c = 0; c < choices.length; c++) {
        const choice = choices[c]!;
        // n > 1 is not supported by the runner: other choices are ignored.
        if (choice.index != null && choice.index !== 0) continue;
        if (choice.delta) this.#delta(choice.delta, out);
        if (choice.finish_reason) {
          this.#closeText(out);
          for (const call of this.#calls.values()) {
            if (call.block === undefined)
              throw new ModelStreamError("The model finished a tool call that never got a name.");
            out.push({ type: "contentBlockStop", index: call.block });
          }
          out.push({ type: "messageStop", stopReason: openAIStopReason(choice.finish_reason) });
          this.#stopped = true;
          break;
        }
      }
    }
    if (chunk.usage) {
      const usage = toUsage(chunk.usage);
      if (usage) out.push({ type: "metadata", usage });
    }
  }

  /**
   * Some servers (older Ollama, some llama.cpp / LM Studio builds) send each call whole, without
   * `index`: a delta with a new id starts a new call; one without an id continues the last.
   * Their keys are negative, so they never meet a server's own indexes.
   */
  #unindexedKey(id: string | null | undefined, position: number): number {
    const last = this.#unindexed === undefined ? undefined : this.#calls.get(this.#unindexed);
    const fresh = last === undefined || (id != null && id !== last.id) || (id == null && position > 0);
    if (fresh) this.#unindexed = -(this.#calls.size + 1);
    return this.#unindexed as number;
  }

  #closeText(out: ModelStreamEvent[]): void {
    if (this.#text !== undefined) out.push({ type: "contentBlockStop", index: this.#text });
    if (this.#reasoning !== undefined) out.push({ type: "contentBlockStop", index: this.#reasoning });
    this.#text = this.#reasoning = undefined;
  }

  #delta(delta: Delta, out: ModelStreamEvent[]): void {
    const thought = delta.reasoning_content || delta.reasoning;
    if (thought) {
      if (this.#text !== undefined) out.push({ type: "contentBlockStop", index: this.#text });
      this.#text = undefined;
      if (this.#reasoning === undefined) {
        this.#reasoning = this.#next++;
        out.push({ type: "contentBlockStart", index: this.#reasoning, start: { type: "reasoning" } });
      }
      out.push({ type: "contentBlockDelta", index: this.#reasoning, delta: { type: "reasoning", text: thought } });
    }
    if (delta.content) {
      if (this.#reasoning !== undefined) out.push({ type: "contentBlockStop", index: this.#reasoning });
      this.#reasoning = undefined;
      if (this.#text === undefined) {
        this.#text = this.#next++;
        out.push({ type: "contentBlockStart", index: this.#text, start: { type: "text" } });
      }
      out.push({ type: "contentBlockDelta", index: this.#text, delta: { type: "text", text: delta.content } });
    }
    const toolCalls = delta.tool_calls;
    if (!toolCalls || toolCalls.length === 0) return;
    this.#closeText(out);
    for (let t = 0; t < toolCalls.length; t++) {
      const tc = toolCalls[t]!;
      // Parallel calls interleave by `index`; id and name usually come only in the first delta.
      const key = tc.index ?? this.#unindexedKey(tc.id, t);
      let call = this.#calls.get(key);
      if (!call) this.#calls.set(key, (call = { block: undefined, id: undefined, name: undefined, early: "" }));
      if (tc.id && !call.id) call.id = tc.id;
      const fn = tc.function;
      if (fn?.name && !call.name) call.name = fn.name;
      const args = fn?.arguments;
      if (call.block === undefined) {
        if (!call.name) {
          if (args) call.early += args;
          continue;
        }
        call.block = this.#next++;
        out.push({
          type: "contentBlockStart",
          index: call.block,
          start: { type: "toolUse", toolUseId: call.id ?? this.#newId(), name: call.name },
        });
        if (call.early)
          out.push({
            type: "contentBlockDelta",
            index: call.block,
            delta: { type: "toolUseInput", input: call.early },
          });
      }
      if (args)
        out.push({ type: "contentBlockDelta", index: call.block, delta: { type: "toolUseInput", input: args } });
    }
  }
}
