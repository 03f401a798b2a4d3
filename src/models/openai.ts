/**
 * `OpenAIChatModel`: any OpenAI-compatible `/chat/completions` endpoint, streamed,
 * on `fetch` and `eventsource-parser` alone (pages, Workers, Deno, Node).
 *
 * @module
 */
import type { Message } from "../agent/messages/messages.js";
import type { Model, ModelStreamEvent, ModelStreamOptions } from "../agent/model.js";
import { toOpenAIMessages, toOpenAITools } from "./openai-messages.js";
import { OpenAIStreamDecoder } from "./openai-stream.js";
import { openEventStream, type RetrySetting } from "./retry.js";
import { decodeSse, type StreamTimeouts } from "./sse.js";

/** Options of {@link OpenAIChatModel}. */
export interface OpenAIChatModelOptions extends StreamTimeouts {
  /** The model id, e.g. `gpt-4o-mini`, `llama3.2`, `qwen/qwen3-32b`. */
  model: string;
  /**
   * The API root, with any path prefix: `https://api.openai.com/v1`,
   * `http://localhost:11434/v1`, `https://openrouter.ai/api/v1`. `/chat/completions`
   * is appended (unless the URL already ends with it). Default `https://api.openai.com/v1`.
   */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer …`; omit for local servers. */
  apiKey?: string;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`). Default none. */
  headers?: Record<string, string>;
  /**
   * Extra body fields merged into every request: `temperature`, `max_tokens`,
   * `reasoning_effort`, … They may override `stream_options` (set it to
   * `undefined` for servers that reject it). Default none.
   */
  params?: Record<string, unknown>;
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Retry of 429, 5xx and network errors before the stream starts.
   * `false` turns it off. Default `{ maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30000 }`.
   */
  retry?: RetrySetting;
  /** Send reasoning back as `reasoning_content` (DeepSeek-style servers want it). Default `false`: dropped. */
  sendReasoning?: boolean;
}

/**
 * A model served by an OpenAI-compatible chat-completions endpoint: OpenAI,
 * Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter, Groq, …
 *
 * Streams text, reasoning (`reasoning_content` / `reasoning`), parallel tool
 * calls and usage. HTTP errors become {@link ModelError} (or
 * {@link ContextWindowOverflowError}); 429/5xx are retried with backoff first. Every wait is
 * bounded: `idleTimeoutMs` (default 60 s without a byte) and `timeoutMs` (default 10 min per
 * response) end the stream with a `ModelStreamError` whose `reason` is `"idle"` or `"timeout"`.
 *
 * @example
 * ```ts
 * import { Agent } from "kaboo-workflows";
 * import { OpenAIChatModel } from "kaboo-workflows/models/openai";
 *
 * const model = new OpenAIChatModel({
 *   baseUrl: "http://localhost:11434/v1",
 *   model: "qwen3:8b",
 *   params: { temperature: 0.2 },
 * });
 * const agent = new Agent({ model, tools: [weather] });
 * const result = await agent.invoke("Weather in Oslo?");
 * ```
 */
export class OpenAIChatModel implements Model {
  modelId: string;
  readonly #options: OpenAIChatModelOptions;
  readonly #url: string;

  /** @param options - See {@link OpenAIChatModelOptions}. */
  constructor(options: OpenAIChatModelOptions) {
    this.modelId = options.model;
    this.#options = options;
    this.#url = chatCompletionsUrl(options.baseUrl ?? "https://api.openai.com/v1");
  }

  /**
   * The request body for one call (what {@link stream} posts).
   * @param messages - The conversation.
   * @param options - System prompt and tool specs.
   * @returns The JSON body.
   */
  requestBody(
    messages: Message[],
    options: Pick<ModelStreamOptions, "systemPrompt" | "toolSpecs">,
  ): Record<string, unknown> {
    const body: Record<string, unknown> = {
      stream_options: { include_usage: true },
      ...this.#options.params,
      model: this.modelId,
      messages: toOpenAIMessages(messages, options.systemPrompt, {
        sendReasoning: this.#options.sendReasoning === true,
      }),
      stream: true,
    };
    if (options.toolSpecs.length) body["tools"] = toOpenAITools(options.toolSpecs);
    return body;
  }

  /**
   * Streams one response. See {@link Model.stream}.
   * @param messages - The conversation.
   * @param options - System prompt, tool specs and abort signal.
   * @returns Model events.
   */
  stream(messages: Message[], options: ModelStreamOptions): AsyncGenerator<ModelStreamEvent, void, undefined> {
    return decodeSse(
      (signal) => this.#open(messages, options, signal),
      new OpenAIStreamDecoder(),
      options.signal,
      this.#options,
    );
  }

  async #open(
    messages: Message[],
    options: ModelStreamOptions,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    const o = this.#options;
    const body = JSON.stringify(this.requestBody(messages, options));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...o.headers,
    };
    if (o.apiKey) headers["authorization"] = `Bearer ${o.apiKey}`;
    return openEventStream({
      provider: "openai",
      url: this.#url,
      headers,
      body,
      signal,
      retry: o.retry,
      fetch: o.fetch,
    });
  }
}

/**
 * Joins a base URL and `/chat/completions`, keeping any path prefix.
 * @param baseUrl - e.g. `https://openrouter.ai/api/v1` or `http://host:8080/v1/`.
 * @returns The endpoint URL.
 */
export function chatCompletionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return /\/chat\/completions$/.test(trimmed) ? trimmed : `${trimmed}/chat/completions`;
}

export { ModelError, ContextWindowOverflowError, isContextOverflow } from "./errors.js";
export type { ModelErrorDetails, ModelProvider } from "./errors.js";
export type { RetryInfo, RetryOptions, RetrySetting } from "./retry.js";
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_STREAM_TIMEOUT_MS } from "./sse.js";
export type { StreamTimeouts } from "./sse.js";
export { toOpenAIMessages, toOpenAITools } from "./openai-messages.js";
export type {
  OpenAIContentPart,
  OpenAIMessage,
  OpenAIMessageOptions,
  OpenAITool,
  OpenAIToolCall,
} from "./openai-messages.js";
