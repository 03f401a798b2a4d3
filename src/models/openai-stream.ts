/**
 * Chat-completions SSE chunks → the runner's model events.
 *
 * @module
 */
import * as z from "zod/v4";
import { ModelStreamError } from "../errors.js";
import { errorFromFields, readErrorFields } from "./errors.js";
import type { ModelStopReason, ModelStreamEvent, Usage } from "./model.js";
import type { EventSourceMessage } from "./sse.js";

// Loose objects: servers add fields of their own (OpenRouter's `reasoning_details`,
// vLLM's `stop_reason`…); a wrong type is still rejected before it reaches a tool input.
const str = z.string().nullish();
const num = z.number().nullish();
const toolCallDelta = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  id: str,
  function: z.looseObject({ name: str, arguments: str }).nullish(),
});
const chunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: num,
        delta: z
          .looseObject({ content: str, reasoning_content: str, reasoning: str, tool_calls: z.array(toolCallDelta).nullish() })
          .nullish(),
        finish_reason: str,
      }),
    )
    .nullish(),
  usage: z
    .looseObject({
      prompt_tokens: num,
      completion_tokens: num,
      total_tokens: num,
      prompt_tokens_details: z.looseObject({ cached_tokens: num }).nullish(),
    })
    .nullish(),
  error: z.unknown().optional(),
});

type Chunk = z.infer<typeof chunkSchema>;

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
 * Turns parsed SSE events of a chat-completions stream into model events.
 *
 * Emits `messageStop` only when the server sent a `finish_reason`: a stream that
 * ends early is left unfinished so the runner reports it.
 *
 * @param events - SSE events of one response.
 * @param newId - Makes a tool-call id for servers that send none. Default `crypto.randomUUID`.
 * @returns Model events, from the first content block on (no `messageStart`).
 * @throws ModelStreamError for a chunk that is not JSON or not chunk-shaped;
 *   ModelError / ContextWindowOverflowError for an error object in the stream.
 */
export async function* openAIEvents(
  events: AsyncIterable<EventSourceMessage>,
  newId: () => string = () => `call_${crypto.randomUUID()}`,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  let next = 0;
  let text: number | undefined;
  let reasoning: number | undefined;
  const calls = new Map<number, PendingCall>();
  let stopped = false;

  for await (const event of events) {
    const data = event.data;
    if (data === "[DONE]") return;
    if (data === "" || data.trim() === "") continue;
    const chunk = parseChunk(data);
    if (chunk.error !== undefined && chunk.error !== null) throw errorFromFields("openai", readErrorFields(chunk), { body: chunk });
    if (event.event === "error") throw errorFromFields("openai", readErrorFields(chunk), { body: chunk });
    const choices = chunk.choices;
    if (choices && !stopped) {
      for (let c = 0; c < choices.length; c++) {
        const choice = choices[c]!;
        if (choice.index !== undefined && choice.index !== null && choice.index !== 0) continue;
        const delta = choice.delta;
        if (delta) {
          const thought = delta.reasoning_content || delta.reasoning;
          if (thought) {
            if (text !== undefined) yield { type: "contentBlockStop", index: text };
            text = undefined;
            if (reasoning === undefined) {
              reasoning = next++;
              yield { type: "contentBlockStart", index: reasoning, start: { type: "reasoning" } };
            }
            yield { type: "contentBlockDelta", index: reasoning, delta: { type: "reasoning", text: thought } };
          }
          if (delta.content) {
            if (reasoning !== undefined) yield { type: "contentBlockStop", index: reasoning };
            reasoning = undefined;
            if (text === undefined) {
              text = next++;
              yield { type: "contentBlockStart", index: text, start: { type: "text" } };
            }
            yield { type: "contentBlockDelta", index: text, delta: { type: "text", text: delta.content } };
          }
          const toolCalls = delta.tool_calls;
          if (toolCalls && toolCalls.length) {
            if (text !== undefined) yield { type: "contentBlockStop", index: text };
            if (reasoning !== undefined) yield { type: "contentBlockStop", index: reasoning };
            text = reasoning = undefined;
            for (let t = 0; t < toolCalls.length; t++) {
              const tc = toolCalls[t]!;
              // Parallel calls interleave by `index`; id and name usually come only in the first delta.
              const key = tc.index ?? t;
              let call = calls.get(key);
              if (!call) calls.set(key, (call = { block: undefined, id: undefined, name: undefined, early: "" }));
              if (tc.id && !call.id) call.id = tc.id;
              const fn = tc.function;
              if (fn?.name && !call.name) call.name = fn.name;
              const args = fn?.arguments;
              if (call.block === undefined) {
                if (!call.name) {
                  if (args) call.early += args;
                  continue;
                }
                call.block = next++;
                yield { type: "contentBlockStart", index: call.block, start: { type: "toolUse", toolUseId: call.id ?? newId(), name: call.name } };
                if (call.early) yield { type: "contentBlockDelta", index: call.block, delta: { type: "toolUseInput", input: call.early } };
              }
              if (args) yield { type: "contentBlockDelta", index: call.block, delta: { type: "toolUseInput", input: args } };
            }
          }
        }
        if (choice.finish_reason) {
          if (text !== undefined) yield { type: "contentBlockStop", index: text };
          if (reasoning !== undefined) yield { type: "contentBlockStop", index: reasoning };
          text = reasoning = undefined;
          for (const call of calls.values()) {
            if (call.block === undefined) throw new ModelStreamError("The model finished a tool call that never got a name.");
            yield { type: "contentBlockStop", index: call.block };
          }
          yield { type: "messageStop", stopReason: openAIStopReason(choice.finish_reason) };
          stopped = true;
          break;
        }
      }
    }
    if (chunk.usage) {
      const usage = toUsage(chunk.usage);
      if (usage) yield { type: "metadata", usage };
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
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) {
    throw new ModelStreamError(`The model sent a malformed chunk: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  return parsed.data;
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
