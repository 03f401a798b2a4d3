/**
 * A chat-completions SSE chunk read and checked: by hand on the two hot paths (a text or reasoning
 * chunk, a tool-call delta chunk), by zod otherwise; and its usage in the runner's terms.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject } from "../agent/shared/lean-schemas.js";
import { ModelStreamError } from "../errors.js";
import type { Usage } from "../agent/model.js";

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

/** A chunk as the decoder reads it. */
export type Chunk = z.infer<typeof chunkSchema>;
/** One choice's delta. */
export type Delta = NonNullable<NonNullable<NonNullable<Chunk["choices"]>[number]["delta"]>>;

/**
 * Parses one chunk's data.
 * @param data - The SSE event's data.
 * @returns The chunk.
 * @throws ModelStreamError for data that is not JSON or not chunk-shaped.
 */
export function parseChunk(data: string): Chunk {
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

/**
 * A chunk's usage in the runner's terms.
 * @param u - The chunk's `usage`.
 * @returns The usage, or `undefined` when it reports no tokens at all.
 */
export function toUsage(u: NonNullable<Chunk["usage"]>): Usage | undefined {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  if (u.prompt_tokens == null && u.completion_tokens == null && u.total_tokens == null) return undefined;
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: u.total_tokens ?? input + output };
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (cached) usage.cacheReadInputTokens = cached;
  return usage;
}
