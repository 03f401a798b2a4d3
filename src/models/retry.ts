/**
 * Bounded retry of the HTTP request that opens a model stream: exponential
 * backoff with jitter, honouring `Retry-After`. Only the request is retried —
 * once a byte of the stream has been read, a failure is the caller's to handle
 * (a hook can still set `AfterModelCallEvent.retry`).
 *
 * @module
 */
import { ModelStreamError } from "../errors.js";
import {
  type ContextWindowOverflowError,
  errorFromFields,
  errorFromResponse,
  ModelError,
  type ModelProvider,
  readErrorFields,
} from "./errors.js";

/** What {@link RetryOptions.onRetry} is told before each wait. */
export interface RetryInfo {
  /** The attempt that just failed (1 for the first request). */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  /** Why: the HTTP error, or the network error. */
  error: unknown;
}

/** How the request is retried. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** First backoff delay; doubles each attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait. A `Retry-After` longer than this is not waited out: the error is thrown. Default 30 000 ms. */
  maxDelayMs?: number;
  /** Called before each wait (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

/** The retry setting of a model: `false` turns it off; options tune it; absent means the defaults. */
export type RetrySetting = false | RetryOptions | undefined;

const RETRY_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

/**
 * Sleeps, waking early (with the signal's reason) when the signal aborts.
 * @param ms - Milliseconds.
 * @param signal - Optional abort signal.
 * @returns Resolves after `ms`; rejects on abort.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Backoff for an attempt: `base * 2^(attempt-1)`, capped, with "equal jitter"
 * (half fixed, half random) so clients that failed together do not retry together.
 * @param attempt - The failed attempt, from 1.
 * @param base - Base delay in ms.
 * @param max - Cap in ms.
 * @param random - Source of randomness in [0, 1). Default `Math.random`.
 * @returns Milliseconds.
 */
export function backoffDelay(attempt: number, base: number, max: number, random: () => number = Math.random): number {
  const exp = Math.min(max, base * 2 ** (attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Options of {@link fetchWithRetry}. */
export interface FetchWithRetryOptions {
  provider: ModelProvider;
  retry: RetrySetting;
  signal?: AbortSignal | undefined;
}

/**
 * Sends a request until it gets an OK response, retrying 429, 5xx and network
 * errors within the bound.
 * @param send - Sends the request once (a fresh body each time).
 * @param options - Provider name (for errors), retry setting and abort signal.
 * @returns The OK response, its body unread.
 * @throws ModelError or ContextWindowOverflowError for an HTTP error that is not
 *   retried (or retried out); the abort reason when the signal aborts.
 */
export async function fetchWithRetry(send: () => Promise<Response>, options: FetchWithRetryOptions): Promise<Response> {
  const r = options.retry === false ? { maxAttempts: 1 } : (options.retry ?? {});
  const maxAttempts = Math.max(1, Math.floor(r.maxAttempts ?? 4));
  const base = r.baseDelayMs ?? 500;
  const max = r.maxDelayMs ?? 30_000;
  const { signal, provider } = options;
  for (let attempt = 1; ; attempt++) {
    let error: ModelError | ContextWindowOverflowError;
    let retryable: boolean;
    try {
      const response = await send();
      if (response.ok) return response;
      error = await errorFromResponse(response, provider);
      retryable = error instanceof ModelError && RETRY_STATUS.has(response.status);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // fetch rejects with a TypeError for network failures (DNS, refused, reset).
      error = new ModelError(
        `The ${provider} model could not be reached: ${e instanceof Error ? e.message : String(e)}`,
        {
          provider,
          cause: e,
        },
      );
      retryable = true;
    }
    if (!retryable || attempt >= maxAttempts) throw error;
    const retryAfter = error instanceof ModelError ? error.retryAfter : undefined;
    const delayMs = retryAfter !== undefined ? Math.ceil(retryAfter * 1000) : backoffDelay(attempt, base, max);
    // Waiting out a long Retry-After would freeze the run; the caller sees retryAfter instead.
    if (delayMs > max) throw error;
    r.onRetry?.({ attempt, delayMs, error });
    await abortableSleep(delayMs, signal);
  }
}

/** What {@link openEventStream} sends. */
export interface EventStreamRequest {
  provider: ModelProvider;
  url: string;
  headers: Record<string, string>;
  /** The JSON body (sent again as is on a retry). */
  body: string;
  signal: AbortSignal;
  retry: RetrySetting;
  /** Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
}

/**
 * POSTs a streaming model request (retried as {@link fetchWithRetry} retries) and opens its event stream.
 * @param r - See {@link EventStreamRequest}.
 * @returns The response's body.
 * @throws ModelError (or ContextWindowOverflowError) for an HTTP error, or for a JSON answer that carries an
 *   error (a server that reports errors with status 200); ModelStreamError for no body, or a JSON answer
 *   instead of a stream (a server that ignored `stream: true`).
 */
export async function openEventStream(r: EventStreamRequest): Promise<ReadableStream<Uint8Array>> {
  const doFetch = r.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const init: RequestInit = { method: "POST", headers: r.headers, body: r.body, signal: r.signal };
  const response = await fetchWithRetry(() => doFetch(r.url, init), r);
  if (!response.body) throw new ModelStreamError("The model's response has no body.");
  if ((response.headers.get("content-type") ?? "").includes("application/json")) {
    const json: unknown = await response.json().catch(() => undefined);
    const fields = readErrorFields(json);
    if (fields.message !== undefined)
      throw errorFromFields(r.provider, fields, { status: response.status, body: json });
    throw new ModelStreamError("The model answered with JSON instead of an event stream; is streaming supported?");
  }
  return response.body;
}
