/**
 * The `Model` interface every provider implements, and the events it streams.
 *
 * A model turns a conversation into a stream of events shaped like the Bedrock
 * ConverseStream / Strands events, so the runner assembles one assistant
 * message the same way whatever the provider.
 *
 * The interface is the runner's, so it lives in agent/ (the layer rule: agent/ imports nothing
 * above it); the providers that implement it are in models/.
 *
 * @module
 */
import type { JsonObject, Message } from "./messages/messages.js";

/** Why the model stopped. */
export type ModelStopReason = "endTurn" | "toolUse" | "maxTokens" | "stopSequence" | "contentFiltered";

/** Token usage of one model call (or summed over a run). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** What the model is told about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonObject;
}

/** The start of a content block. */
export type ContentBlockStart =
  | { type: "text" }
  | { type: "reasoning" }
  | { type: "toolUse"; toolUseId: string; name: string };

/** A piece of a content block. */
export type ContentBlockDelta =
  | { type: "text"; text: string }
  /** A fragment of the tool call's JSON arguments; fragments concatenate. */
  | { type: "toolUseInput"; input: string }
  | { type: "reasoning"; text?: string; signature?: string; redacted?: string };

/** One event of a model's stream. */
export type ModelStreamEvent =
  | { type: "messageStart"; role: "assistant" }
  | { type: "contentBlockStart"; index: number; start: ContentBlockStart }
  | { type: "contentBlockDelta"; index: number; delta: ContentBlockDelta }
  | { type: "contentBlockStop"; index: number }
  | { type: "messageStop"; stopReason: ModelStopReason }
  | { type: "metadata"; usage?: Usage; latencyMs?: number };

/** What a model call is given besides the messages. */
export interface ModelStreamOptions {
  systemPrompt?: string;
  toolSpecs: ToolSpec[];
  /** Aborts the call (and its fetch) at once. */
  signal?: AbortSignal;
}

/**
 * A language model the runner can call.
 *
 * @example
 * ```ts
 * const model: Model = {
 *   modelId: "echo",
 *   async *stream(messages) {
 *     yield { type: "messageStart", role: "assistant" };
 *     yield { type: "contentBlockStart", index: 0, start: { type: "text" } };
 *     yield { type: "contentBlockDelta", index: 0, delta: { type: "text", text: "hi" } };
 *     yield { type: "contentBlockStop", index: 0 };
 *     yield { type: "messageStop", stopReason: "endTurn" };
 *   },
 * };
 * ```
 */
export interface Model {
  /** The provider's model id, e.g. `gpt-4o-mini`; may be changed between calls. */
  modelId: string;
  /**
   * Streams one response.
   * @param messages - The conversation as the model should see it (already rewritten by middleware).
   * @param options - System prompt, tool specs and abort signal.
   */
  stream(messages: Message[], options: ModelStreamOptions): AsyncIterable<ModelStreamEvent>;
}
