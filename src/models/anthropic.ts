/**
 * `AnthropicModel`: the Anthropic Messages API (`/v1/messages`), streamed, on
 * `fetch` and `eventsource-parser` alone (pages, Workers, Deno, Node).
 *
 * @module
 */
import type { Message } from "../agent/messages/messages.js";
import { toAnthropicMessages, toAnthropicTools } from "./anthropic-messages.js";
import { AnthropicStreamDecoder } from "./anthropic-stream.js";
import type { Model, ModelStreamEvent, ModelStreamOptions } from "../agent/model.js";
import { openEventStream, type RetrySetting } from "./retry.js";
import { decodeSse, type StreamTimeouts } from "./sse.js";

/** Options of {@link AnthropicModel}. */
export interface AnthropicModelOptions extends StreamTimeouts {
  /** The model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** `max_tokens` of every request (the API requires it). */
  maxTokens: number;
  /** Sent as `x-api-key`; omit behind a proxy that adds it. */
  apiKey?: string;
  /** The API root; `/v1/messages` is appended. Default `https://api.anthropic.com`. */
  baseUrl?: string;
  /** Extra headers (e.g. `anthropic-beta`). Default none. */
  headers?: Record<string, string>;
  /**
   * Extra body fields merged into every request: `temperature`, `thinking`,
   * `tool_choice`, `metadata`, … Default none.
   */
  params?: Record<string, unknown>;
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Retry of 429, 5xx (529 "overloaded" included) and network errors before the
   * stream starts. `false` turns it off. Default `{ maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30000 }`.
   */
  retry?: RetrySetting;
  /**
   * Sends `anthropic-dangerous-direct-browser-access: true`, without which the
   * API refuses calls from a page (CORS). Opt in only when the key in that page
   * is the user's own or a narrowly scoped one: anything the page holds can be
   * read by its scripts, its extensions and its user. Default `false`.
   */
  dangerouslyAllowBrowser?: boolean;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  anthropicVersion?: string;
}

/**
 * A Claude model over the Anthropic Messages API.
 *
 * Streams text, tool calls, thinking (kept with its signature so it can be sent
 * back) and usage. HTTP errors become {@link ModelError} (or
 * {@link ContextWindowOverflowError}); 429/5xx are retried with backoff first. Every wait is
 * bounded: `idleTimeoutMs` (default 60 s without a byte) and `timeoutMs` (default 10 min per
 * response) end the stream with a `ModelStreamError` whose `reason` is `"idle"` or `"timeout"`.
 *
 * @example
 * ```ts
 * import { Agent } from "kaboo-workflows";
 * import { AnthropicModel } from "kaboo-workflows/models/anthropic";
 *
 * const model = new AnthropicModel({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-5", maxTokens: 4096 });
 * const agent = new Agent({ model, tools: [weather] });
 * const result = await agent.invoke("Weather in Oslo?");
 * ```
 */
export class AnthropicModel implements Model {
  modelId: string;
  readonly #options: AnthropicModelOptions;
  readonly #url: string;

  /** @param options - See {@link AnthropicModelOptions}. */
  constructor(options: AnthropicModelOptions) {
    this.modelId = options.model;
    this.#options = options;
    this.#url = messagesUrl(options.baseUrl ?? "https://api.anthropic.com");
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
      max_tokens: this.#options.maxTokens,
      ...this.#options.params,
      model: this.modelId,
      messages: toAnthropicMessages(messages),
      stream: true,
    };
    if (options.systemPrompt) body["system"] = options.systemPrompt;
    if (options.toolSpecs.length) body["tools"] = toAnthropicTools(options.toolSpecs);
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
      new AnthropicStreamDecoder(),
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
      "anthropic-version": o.anthropicVersion ?? "2023-06-01",
      ...o.headers,
    };
    if (o.apiKey) headers["x-api-key"] = o.apiKey;
    if (o.dangerouslyAllowBrowser === true) headers["anthropic-dangerous-direct-browser-access"] = "true";
    return openEventStream({
      provider: "anthropic",
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
 * Joins a base URL and `/v1/messages` (a base that already ends in `/v1` is not doubled).
 * @param baseUrl - e.g. `https://api.anthropic.com` or a proxy's `https://host/anthropic/v1`.
 * @returns The endpoint URL.
 */
export function messagesUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  if (/\/v1\/messages$/.test(trimmed)) return trimmed;
  return /\/v1$/.test(trimmed) ? `${trimmed}/messages` : `${trimmed}/v1/messages`;
}

export { ModelError, ContextWindowOverflowError, isContextOverflow } from "./errors.js";
export type { ModelErrorDetails, ModelProvider } from "./errors.js";
export type { RetryInfo, RetryOptions, RetrySetting } from "./retry.js";
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_STREAM_TIMEOUT_MS } from "./sse.js";
export type { StreamTimeouts } from "./sse.js";
export { toAnthropicMessages, toAnthropicTools } from "./anthropic-messages.js";
export type { AnthropicBlock, AnthropicMessage, AnthropicSource, AnthropicTool } from "./anthropic-messages.js";
