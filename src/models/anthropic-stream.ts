/**
 * Anthropic Messages SSE events → the runner's model events.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { ModelStreamError } from "../errors.js";
import { errorFromFields, readErrorFields } from "./errors.js";
import type { ModelStopReason, ModelStreamEvent, Usage } from "../agent/model.js";
import type { EventSourceMessage, StreamDecoder } from "./sse.js";

// z.object strips unknown keys, so fields and block types the API adds over time (citations,
// server tools) are tolerated; wrong types are still rejected before they reach a tool input.
const index = z.int().check(z.nonnegative());
const num = z.nullish(z.number());
const usageSchema = z.object({
  input_tokens: num,
  output_tokens: num,
  cache_creation_input_tokens: num,
  cache_read_input_tokens: num,
});
/** The documented shape of each event the decoder reads (unknown keys are stripped). */
export const schemas = {
  message_start: z.object({ message: z.object({ usage: z.nullish(usageSchema) }) }),
  content_block_start: z.object({
    index,
    content_block: z.object({
      type: z.string(),
      id: z.optional(z.string()),
      name: z.optional(z.string()),
      text: z.optional(z.string()),
      thinking: z.optional(z.string()),
      signature: z.optional(z.string()),
      data: z.optional(z.string()),
    }),
  }),
  content_block_delta: z.object({
    index,
    delta: z.object({
      type: z.string(),
      text: z.optional(z.string()),
      partial_json: z.optional(z.string()),
      thinking: z.optional(z.string()),
      signature: z.optional(z.string()),
    }),
  }),
  content_block_stop: z.object({ index }),
  message_delta: z.object({
    delta: z.object({ stop_reason: z.nullish(z.string()) }),
    usage: z.nullish(usageSchema),
  }),
};

/**
 * Maps a Messages API `stop_reason` to the runner's stop reason.
 * @param reason - `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `refusal`, … or `undefined`.
 * @returns The stop reason; unknown values give `endTurn`.
 */
export function anthropicStopReason(reason: string | null | undefined): ModelStopReason {
  switch (reason) {
    case "tool_use":
      return "toolUse";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "maxTokens";
    case "stop_sequence":
      return "stopSequence";
    case "refusal":
      return "contentFiltered";
    default:
      return "endTurn";
  }
}

/**
 * Turns the SSE events of a Messages stream into model events.
 *
 * Emits `messageStop` only on the server's `message_stop`: a stream that ends
 * early is left unfinished so the runner reports it. One decoder per response.
 *
 * @example
 * ```ts
 * const events = decodeSse(response.body, new AnthropicStreamDecoder(), signal);
 * ```
 */
export class AnthropicStreamDecoder implements StreamDecoder<ModelStreamEvent> {
  #finished = false;
  #stopReason: string | null | undefined;
  readonly #usage: RawUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  // Blocks we opened; others (server tools, future types) are skipped with their deltas.
  readonly #open = new Set<number>();

  /** Whether `message_stop` arrived. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Decodes one SSE event.
   * @param event - The SSE event.
   * @param out - Receives the model events.
   * @throws ModelStreamError for an event that is not JSON or not shaped as documented;
   *   ModelError / ContextWindowOverflowError for an `error` event.
   */
  push(event: EventSourceMessage, out: ModelStreamEvent[]): void {
    if (event.data === "" || event.data.trim() === "") return;
    const json = parseJson(event.data);
    const type =
      event.event ?? (typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined);
    switch (type) {
      case "message_start": {
        readUsage(this.#usage, check(schemas.message_start, json, type).message.usage);
        out.push({ type: "messageStart", role: "assistant" });
        break;
      }
      case "content_block_start":
        this.#blockStart(check(schemas.content_block_start, json, type), out);
        break;
      case "content_block_delta":
        this.#blockDelta(isBlockDelta(json) ? json : check(schemas.content_block_delta, json, type), out);
        break;
      case "content_block_stop": {
        const { index: i } = check(schemas.content_block_stop, json, type);
        if (this.#open.delete(i)) out.push({ type: "contentBlockStop", index: i });
        break;
      }
      case "message_delta": {
        const e = check(schemas.message_delta, json, type);
        if (e.delta.stop_reason) this.#stopReason = e.delta.stop_reason;
        readUsage(this.#usage, e.usage);
        break;
      }
      case "message_stop":
        out.push({ type: "messageStop", stopReason: anthropicStopReason(this.#stopReason) });
        out.push({ type: "metadata", usage: toUsage(this.#usage) });
        this.#finished = true;
        break;
      case "error":
        throw errorFromFields("anthropic", readErrorFields(json), { body: json });
      default:
        // `ping` and event types added after this was written.
        break;
    }
  }

  /** A text, tool_use or thinking block opens (with its first text, when the start carries one). */
  #blockStart(e: z.output<(typeof schemas)["content_block_start"]>, out: ModelStreamEvent[]): void {
    const { index: i, content_block: b } = e;
    if (b.type === "text") {
      this.#open.add(i);
      out.push({ type: "contentBlockStart", index: i, start: { type: "text" } });
      if (b.text) out.push({ type: "contentBlockDelta", index: i, delta: { type: "text", text: b.text } });
    } else if (b.type === "tool_use") {
      if (!b.id || !b.name)
        throw new ModelStreamError(`The model started tool_use block ${i} without an id or a name.`);
      this.#open.add(i);
      out.push({ type: "contentBlockStart", index: i, start: { type: "toolUse", toolUseId: b.id, name: b.name } });
    } else if (b.type === "thinking" || b.type === "redacted_thinking") {
      this.#open.add(i);
      out.push({ type: "contentBlockStart", index: i, start: { type: "reasoning" } });
      if (b.thinking) out.push({ type: "contentBlockDelta", index: i, delta: { type: "reasoning", text: b.thinking } });
      if (b.type === "redacted_thinking" && b.data)
        out.push({ type: "contentBlockDelta", index: i, delta: { type: "reasoning", redacted: b.data } });
    }
  }

  /** A delta of an open block (one of a block never opened is dropped). */
  #blockDelta({ index: i, delta: d }: BlockDelta, out: ModelStreamEvent[]): void {
    if (!this.#open.has(i)) return;
    if (d.type === "text_delta" && d.text)
      out.push({ type: "contentBlockDelta", index: i, delta: { type: "text", text: d.text } });
    else if (d.type === "input_json_delta" && d.partial_json) {
      out.push({ type: "contentBlockDelta", index: i, delta: { type: "toolUseInput", input: d.partial_json } });
    } else if (d.type === "thinking_delta" && d.thinking) {
      out.push({ type: "contentBlockDelta", index: i, delta: { type: "reasoning", text: d.thinking } });
    } else if (d.type === "signature_delta" && d.signature) {
      out.push({ type: "contentBlockDelta", index: i, delta: { type: "reasoning", signature: d.signature } });
    }
  }
}

type BlockDelta = z.output<(typeof schemas)["content_block_delta"]>;
const DELTA_FIELDS = ["text", "partial_json", "thinking", "signature"] as const;

/**
 * The hot path (nearly every event of a stream), checked by hand against the same rules as
 * `schemas.content_block_delta`; anything else goes through zod for its error message.
 * @param json - A parsed `content_block_delta` event.
 * @returns Whether it passes those rules.
 */
export function isBlockDelta(json: unknown): json is BlockDelta {
  const j = json as { index?: unknown; delta?: Record<string, unknown> | null } | null;
  if (
    typeof j !== "object" ||
    j === null ||
    Array.isArray(j) ||
    !Number.isSafeInteger(j.index) ||
    (j.index as number) < 0
  )
    return false;
  const d = j.delta;
  if (typeof d !== "object" || d === null || Array.isArray(d) || typeof d.type !== "string") return false;
  for (const k of DELTA_FIELDS) if (d[k] !== undefined && typeof d[k] !== "string") return false;
  return true;
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (e) {
    throw new ModelStreamError(`The model sent an event that is not JSON: ${data.slice(0, 200)}`, { cause: e });
  }
}

function check<T extends z.ZodMiniType>(schema: T, json: unknown, type: string): z.output<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ModelStreamError(`The model sent a malformed ${type} event: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

interface RawUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

function readUsage(raw: RawUsage, u: z.output<typeof usageSchema> | null | undefined): void {
  if (!u) return;
  // message_delta repeats some counts cumulatively; a field it leaves out keeps its earlier value.
  if (u.input_tokens != null) raw.input = u.input_tokens;
  if (u.output_tokens != null) raw.output = u.output_tokens;
  if (u.cache_read_input_tokens != null) raw.cacheRead = u.cache_read_input_tokens;
  if (u.cache_creation_input_tokens != null) raw.cacheWrite = u.cache_creation_input_tokens;
}

function toUsage(raw: RawUsage): Usage {
  // input_tokens excludes cache reads and writes; the runner counts all input, as OpenAI's prompt_tokens does.
  const inputTokens = raw.input + raw.cacheRead + raw.cacheWrite;
  const usage: Usage = { inputTokens, outputTokens: raw.output, totalTokens: inputTokens + raw.output };
  if (raw.cacheRead) usage.cacheReadInputTokens = raw.cacheRead;
  if (raw.cacheWrite) usage.cacheWriteInputTokens = raw.cacheWrite;
  return usage;
}
