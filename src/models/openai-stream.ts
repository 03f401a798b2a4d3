/**
 * Chat-completions SSE chunks → the runner's model events.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject } from "../agent/shared/lean-schemas.js";
import { ModelStreamError } from "../errors.js";
import { errorFromFields, readErrorFields } from "./errors.js";
import type { ModelStopReason, ModelStreamEvent, Usage } from "../agent/model.js";
import type { EventSourceMessage, StreamDecoder } from "./sse.js";

// z.object strips unknown keys, so fields servers add (OpenRouter's `reasoning_details`,
// vLLM's `stop_reason`…) are tolerated; a wrong type is still rejected before it reaches a tool input.
const str = z.nullish(z.string());
const num = z.nullish(z.number());
const toolCallDelta = z.object({
  index: z.nullish(z.int().check(z.nonnegative())),
  id: str,
  function: z.nullish(z.object({ name: str, arguments: str })),
});
/** The shape of a chat-completions chunk as the decoder reads it (unknown keys are stripped). */
export const chunkSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        index: num,
        delta: z.nullish(
          looseObject({
            content: str,
            reasoning_content: str,
            reasoning: str,
            tool_calls: z.nullish(z.array(toolCallDelta)),
          }),
        ),
        finish_reason: str,
      }),
    ),
  ),
  usage: z.nullish(
    looseObject({
      prompt_tokens: num,
      completion_tokens: num,
      total_tokens: num,
      prompt_tokens_details: z.nullish(z.object({ cached_tokens: num })),
    }),
  ),
  error: z.optional(z.unknown()),
});

type Chunk = z.infer<typeof chunkSchema>;
type Delta = NonNullable<NonNullable<NonNullable<Chunk["choices"]>[number]["delta"]>>;

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

function parseChunk(data: string): Chunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (e) {
    throw new ModelStreamError(`The model sent a chunk that is not JSON: ${data.slice(0, 200)}`, { cause: e });
  }
  if (isTextChunk(json) || isToolArgsChunk(json)) return json;
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) {
    throw new ModelStreamError(`The model sent a malformed chunk: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

const TEXT_FIELDS = ["content", "reasoning_content", "reasoning"] as const;

/**
 * The hot path: a chunk carrying only text or reasoning (most of a stream), checked by hand.
 * Anything that can become a tool input (tool_calls), usage or an error goes through zod.
 */
function isTextChunk(json: unknown): json is Chunk {
  const j = json as { choices?: unknown; usage?: unknown; error?: unknown } | null;
  if (typeof j !== "object" || j === null || j.error !== undefined || j.usage != null) return false;
  if (!Array.isArray(j.choices) || j.choices.length !== 1) return false;
  const c = j.choices[0] as { index?: unknown; finish_reason?: unknown; delta?: Record<string, unknown> | null } | null;
  if (typeof c !== "object" || c === null) return false;
  if (c.index != null && typeof c.index !== "number") return false;
  if (c.finish_reason != null && typeof c.finish_reason !== "string") return false;
  const d = c.delta;
  if (d == null) return true;
  if (typeof d !== "object" || d.tool_calls != null) return false;
  for (const k of TEXT_FIELDS) if (d[k] != null && typeof d[k] !== "string") return false;
  return true;
}

/**
 * The other hot path: a chunk carrying tool-call deltas (the rest of a tool-calling stream), checked by
 * hand against the same rules as `toolCallDelta`: an index that is a non-negative integer, an id, name
 * and arguments that are strings, nothing else read from it.
 * @param json - A parsed chunk.
 * @returns Whether it is such a chunk (when `false`, zod decides and words the error).
 */
export function isToolArgsChunk(json: unknown): json is Chunk {
  const j = json as { choices?: unknown; usage?: unknown; error?: unknown } | null;
  if (typeof j !== "object" || j === null || j.error !== undefined || j.usage != null) return false;
  if (!Array.isArray(j.choices) || j.choices.length !== 1) return false;
  const c = j.choices[0] as { index?: unknown; finish_reason?: unknown; delta?: Record<string, unknown> | null } | null;
  if (
    typeof c !== "object" ||
    c === null ||
    c.finish_reason != null ||
    (c.index != null && typeof c.index !== "number")
  )
    return false;
  const d = c.delta;
  if (typeof d !== "object" || d === null || !Array.isArray(d.tool_calls)) return false;
  for (const k of TEXT_FIELDS) if (d[k] != null) return false;
  for (const tc of d.tool_calls as unknown[]) {
    const t = tc as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null } | null;
    if (typeof t !== "object" || t === null || Array.isArray(t)) return false;
    if (t.index != null && !(Number.isSafeInteger(t.index) && (t.index as number) >= 0)) return false;
    if (t.id != null && typeof t.id !== "string") return false;
    const f = t.function;
    if (f != null && (typeof f !== "object" || Array.isArray(f) || (f.name != null && typeof f.name !== "string")))
      return false;
    if (f != null && f.arguments != null && typeof f.arguments !== "string") return false;
  }
  return true;
}

function toUsage(u: NonNullable<Chunk["usage"]>): Usage | undefined {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  if (u.prompt_tokens == null && u.completion_tokens == null && u.total_tokens == null) return undefined;
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: u.total_tokens ?? input + output };
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (cached) usage.cacheReadInputTokens = cached;
  return usage;
}
