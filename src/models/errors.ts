/**
 * Errors of the fetch-based models: HTTP failures, context-window overflows,
 * and the helpers that read a provider's error body and `Retry-After`.
 *
 * @module
 */
import { KabooError } from "../errors.js";
import { isObject } from "../agent/shared/guards.js";

/** Which wire format produced an error. */
export type ModelProvider = "openai" | "anthropic";

/** Fields shared by {@link ModelError} and {@link ContextWindowOverflowError}. */
export interface ModelErrorDetails {
  provider: ModelProvider;
  /** HTTP status; `undefined` for a network failure or an error event inside the stream. */
  status?: number | undefined;
  /** The provider's own message, when its body had one. */
  providerMessage?: string | undefined;
  /** The provider's error type (`rate_limit_error`, `invalid_request_error`, …). */
  errorType?: string | undefined;
  /** The provider's error code (`context_length_exceeded`, …). */
  errorCode?: string | undefined;
  /** Seconds the provider asked us to wait (`Retry-After` / `retry-after-ms`). */
  retryAfter?: number | undefined;
  /** The raw error body (parsed JSON when it was JSON, else the text). */
  body?: unknown;
  cause?: unknown;
}

/** What both provider errors carry: the provider, the HTTP status and the provider's own message. */
abstract class ProviderError extends KabooError {
  readonly provider: ModelProvider;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  readonly body: unknown;
  constructor(message: string, details: ModelErrorDetails) {
    super(message, { cause: details.cause });
    this.provider = details.provider;
    this.status = details.status;
    this.providerMessage = details.providerMessage;
    this.body = details.body;
  }
}

/**
 * A model call failed: an HTTP 4xx/5xx, an error event in the stream, or the
 * network. `status`, `providerMessage` and `retryAfter` let a hook decide
 * whether to set `AfterModelCallEvent.retry`.
 */
export class ModelError extends ProviderError {
  readonly code = "MODEL_ERROR" as const;
  readonly errorType: string | undefined;
  readonly errorCode: string | undefined;
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ModelErrorDetails) {
    super(message, details);
    this.errorType = details.errorType;
    this.errorCode = details.errorCode;
    this.retryAfter = details.retryAfter;
  }
}

/**
 * The conversation no longer fits the model's context window. A distinct class
 * so a hook can clear or trim the context and set `AfterModelCallEvent.retry`.
 */
export class ContextWindowOverflowError extends ProviderError {
  readonly code = "CONTEXT_WINDOW_OVERFLOW" as const;
}

// Wording seen in the wild, per server: OpenAI/vLLM/OpenRouter ("maximum context
// length"), Anthropic ("prompt is too long", "exceed context limit"), llama.cpp
// ("exceeds the available context size", "Context size has been exceeded"),
// llama-cpp-python ("exceed context window"), Ollama ("input exceeds context length").
const OVERFLOW_TEXT =
  /maximum context length|context[ _]length[ _]exceeded|prompt is too long|exceed(?:s|ed)? (?:the )?(?:available )?context (?:size|limit|window|length)|context size has been exceeded|input exceeds context length|too many tokens in (?:the )?prompt|reduce the length of the messages/i;
const OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error"]);

/**
 * Tells whether a provider error means the context window overflowed.
 * @param message - The provider's message (may be `undefined`).
 * @param codeOrType - Its error code and/or type.
 * @returns `true` for an overflow.
 */
export function isContextOverflow(message: string | undefined, ...codeOrType: (string | undefined)[]): boolean {
  if (codeOrType.some((c) => c !== undefined && OVERFLOW_CODES.has(c))) return true;
  return message !== undefined && OVERFLOW_TEXT.test(message);
}

/**
 * Reads how long to wait from response headers: `retry-after-ms` (OpenAI),
 * then `Retry-After` as seconds or an HTTP date.
 * @param headers - The response headers.
 * @param now - Current time in ms (default `Date.now()`), for HTTP dates.
 * @returns Seconds (may be fractional), or `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms) / 1000;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** What {@link readErrorFields} finds in a provider's error object. */
export interface ErrorFields {
  message: string | undefined;
  type: string | undefined;
  code: string | undefined;
}

/**
 * Reads `message`, `type` and `code` from the error shapes of both providers and
 * their look-alikes: `{error:{message,type,code}}` (OpenAI, llama.cpp, Ollama),
 * `{type:"error", error:{type,message}}` (Anthropic), `{object:"error", message}` (vLLM),
 * `{error:"text"}`.
 * @param body - Parsed JSON (anything).
 * @returns The fields found; all `undefined` when none.
 */
export function readErrorFields(body: unknown): ErrorFields {
  const out: ErrorFields = { message: undefined, type: undefined, code: undefined };
  if (!isObject(body)) return out;
  const inner = body["error"];
  const source = isObject(inner) ? inner : body;
  if (typeof inner === "string") out.message = inner;
  else if (typeof source["message"] === "string") out.message = source["message"];
  if (typeof source["type"] === "string" && source["type"] !== "error") out.type = source["type"];
  const code = source["code"];
  if (typeof code === "string" || typeof code === "number") out.code = String(code);
  return out;
}

/**
 * Builds the typed error for a failed HTTP response (reads and consumes its body).
 * @param response - A response with `ok === false`.
 * @param provider - Which wire format.
 * @returns A {@link ContextWindowOverflowError} for an overflow, else a {@link ModelError}.
 */
export async function errorFromResponse(
  response: Response,
  provider: ModelProvider,
): Promise<ModelError | ContextWindowOverflowError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // A body that breaks while we read the error is no reason to hide the status.
  }
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's HTML page, plain text): keep the text.
  }
  const fields = readErrorFields(body);
  const providerMessage = fields.message ?? (text && typeof body === "string" ? text.slice(0, 500) : undefined);
  return errorFromFields(
    provider,
    { ...fields, message: providerMessage },
    {
      status: response.status,
      retryAfter: parseRetryAfter(response.headers),
      body,
      statusText: response.statusText,
    },
  );
}

/**
 * Builds the typed error from an error object's fields (an HTTP body or an
 * error event inside the stream).
 * @param provider - Which wire format.
 * @param fields - From {@link readErrorFields}.
 * @param extra - Status, retry delay and raw body, when known.
 * @returns A {@link ContextWindowOverflowError} for an overflow, else a {@link ModelError}.
 */
export function errorFromFields(
  provider: ModelProvider,
  fields: ErrorFields,
  extra: { status?: number | undefined; retryAfter?: number | undefined; body?: unknown; statusText?: string } = {},
): ModelError | ContextWindowOverflowError {
  const details: ModelErrorDetails = {
    provider,
    status: extra.status,
    providerMessage: fields.message,
    errorType: fields.type,
    errorCode: fields.code,
    retryAfter: extra.retryAfter,
    body: extra.body,
  };
  const where =
    extra.status !== undefined
      ? `HTTP ${extra.status}${extra.statusText ? ` ${extra.statusText}` : ""}`
      : "stream error";
  const what = fields.message ?? fields.type ?? "no message";
  if (isContextOverflow(fields.message, fields.code, fields.type)) {
    return new ContextWindowOverflowError(
      `The ${provider} model's context window overflowed (${where}): ${what}`,
      details,
    );
  }
  return new ModelError(`The ${provider} model call failed (${where}): ${what}`, details);
}
