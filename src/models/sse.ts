/**
 * A response body as server-sent events, parsed by `eventsource-parser`.
 *
 * @module
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { ModelStreamError } from "../errors.js";

export type { EventSourceMessage };

/**
 * Reads a response body as batches of SSE events, one batch per network read.
 *
 * Batches rather than single events: a model stream has tens of thousands of
 * small events, and one async step per read instead of per event keeps the
 * provider close to the bare parser's speed.
 *
 * An event cut off by the end of the body is dropped (as the SSE spec says), so
 * a truncated stream is never patched up here. When the signal aborts, the
 * reader is cancelled so a pending read settles at once even if the fetch
 * ignored the signal.
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: () => void;
  readonly #onRead: (() => void) | undefined;
  #queue: EventSourceMessage[] = [];
  #done = false;
  #endsWithCr = false;

  /**
   * @param body - The response body.
   * @param signal - Aborts reading.
   * @param onRead - Called after each network read (bytes arrived), e.g. to push an idle deadline back.
   */
  constructor(body: ReadableStream<Uint8Array>, signal?: AbortSignal, onRead?: () => void) {
    this.#reader = body.getReader();
    this.#signal = signal;
    this.#onRead = onRead;
    this.#parser = createParser({ onEvent: (event) => void this.#queue.push(event) });
    this.#onAbort = () => void this.#reader.cancel(signal?.reason).catch(() => {});
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /**
   * Reads until at least one event is parsed or the body ends.
   * @returns The events, or `undefined` at the end of the body.
   * @throws The signal's reason on abort; ModelStreamError when the connection breaks.
   */
  async read(): Promise<EventSourceMessage[] | undefined> {
    const signal = this.#signal;
    while (!this.#done) {
      if (signal?.aborted) throw signal.reason;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.#reader.read();
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw new ModelStreamError(
          `The connection broke while the model was streaming: ${e instanceof Error ? e.message : String(e)}`,
          { cause: e, reason: "connection" },
        );
      }
      if (signal?.aborted) throw signal.reason;
      this.#onRead?.();
      if (chunk.done) {
        this.#done = true;
        this.#feed(this.#decoder.decode());
        // A CR ends a line, but the parser holds a trailing one back in case an LF follows;
        // at the end of the body none will, so complete it (a CR-only stream keeps its last event).
        if (this.#endsWithCr) this.#parser.feed("\n");
      } else this.#feed(this.#decoder.decode(chunk.value, { stream: true }));
      if (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        return batch;
      }
    }
    return undefined;
  }

  #feed(text: string): void {
    if (text.length === 0) return;
    this.#endsWithCr = text.charCodeAt(text.length - 1) === 13;
    this.#parser.feed(text);
  }

  /** Stops reading: cancels the body (closing the connection) unless it already ended. */
  async close(): Promise<void> {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    if (!this.#done) {
      this.#done = true;
      await this.#reader.cancel().catch(() => {});
    }
    this.#reader.releaseLock();
  }
}

/**
 * Reads a response body as SSE events, one by one (see {@link SseReader}).
 * @param body - The response body.
 * @param signal - Aborts reading.
 * @returns An async iterable of events; stopping early cancels the body.
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const reader = new SseReader(body, signal);
  try {
    for (let batch = await reader.read(); batch; batch = await reader.read()) yield* batch;
  } finally {
    await reader.close();
  }
}

/** Turns SSE events into model events, synchronously. */
export interface StreamDecoder<T> {
  /** Appends what comes before any event (e.g. `messageStart`) to `out`. */
  start?(out: T[]): void;
  /** Appends the events `event` produces to `out`. */
  push(event: EventSourceMessage, out: T[]): void;
  /** Whether the provider said the stream is over (no more reads needed). */
  readonly finished: boolean;
}

/** Default of {@link StreamTimeouts.idleTimeoutMs}: one minute without a byte. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Default of {@link StreamTimeouts.timeoutMs}: ten minutes for one response. */
export const DEFAULT_STREAM_TIMEOUT_MS = 600_000;
// setTimeout treats longer delays as 1 ms.
const MAX_DELAY = 2_147_483_647;

/** How long a model stream may take; both options of the fetch-based models. */
export interface StreamTimeouts {
  /**
   * Longest wait in milliseconds for the next bytes of the body (keep-alive comments count).
   * Default 60 000. Fails with a `ModelStreamError` whose `reason` is `"idle"`.
   */
  idleTimeoutMs?: number;
  /**
   * Longest time in milliseconds for one response, from sending the request (retries included)
   * to its last event. Default 600 000. Fails with a `ModelStreamError` whose `reason` is `"timeout"`.
   */
  timeoutMs?: number;
}

/**
 * The deadlines of one stream: a signal that aborts (with a typed reason) when the caller's signal
 * aborts, when the overall time is up, or when no bytes came for the idle time. One timer each;
 * the idle timer is re-armed only when it fires early, not on every read.
 */
class Deadlines {
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort = () => this.#controller.abort(this.#outer?.reason);
  readonly #idleMs: number;
  #overall: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #lastRead = 0;

  constructor(outer: AbortSignal | undefined, timeouts: StreamTimeouts) {
    this.#outer = outer;
    this.#idleMs = Math.max(1, Math.min(MAX_DELAY, timeouts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS));
    const totalMs = Math.max(1, Math.min(MAX_DELAY, timeouts.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS));
    if (outer?.aborted) this.#onOuterAbort();
    else outer?.addEventListener("abort", this.#onOuterAbort, { once: true });
    this.#overall = setTimeout(
      () => this.#fail(`The model's response took longer than ${totalMs} ms.`, "timeout"),
      totalMs,
    );
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Starts the idle deadline (once the body is open). */
  startIdle(): void {
    this.read();
    this.#armIdle(this.#idleMs);
  }

  /** Bytes arrived: the idle deadline moves (lazily, see {@link Deadlines}). */
  readonly read = (): void => {
    this.#lastRead = Date.now();
  };

  #armIdle(ms: number): void {
    this.#idle = setTimeout(() => {
      const quiet = Date.now() - this.#lastRead;
      if (quiet >= this.#idleMs) this.#fail(`The model sent nothing for ${this.#idleMs} ms.`, "idle");
      else this.#armIdle(this.#idleMs - quiet);
    }, ms);
  }

  #fail(message: string, reason: "idle" | "timeout"): void {
    this.#controller.abort(new ModelStreamError(message, { reason }));
  }

  dispose(): void {
    clearTimeout(this.#overall);
    clearTimeout(this.#idle);
    this.#outer?.removeEventListener("abort", this.#onOuterAbort);
  }
}

/**
 * Opens a body and drives a decoder over it, with one async step per network
 * read and none between the decoder and the consumer. Every wait is bounded
 * (see {@link StreamTimeouts}).
 * @param open - Sends the request with the given signal; resolves to the body once the response is OK.
 * @param decoder - The provider's decoder.
 * @param signal - The caller's signal; aborts reading.
 * @param timeouts - Idle and overall timeouts (defaults 60 s and 10 min).
 * @returns The decoded events (lazy: nothing is sent until the first `next()`);
 *   stopping early cancels the body.
 */
export async function* decodeSse<T>(
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>,
  decoder: StreamDecoder<T>,
  signal?: AbortSignal,
  timeouts: StreamTimeouts = {},
): AsyncGenerator<T, void, undefined> {
  const deadlines = new Deadlines(signal, timeouts);
  try {
    const body = await open(deadlines.signal);
    deadlines.startIdle();
    const out: T[] = [];
    decoder.start?.(out);
    for (let i = 0; i < out.length; i++) yield out[i]!;
    out.length = 0;
    const reader = new SseReader(body, deadlines.signal, deadlines.read);
    try {
      for (let batch = await reader.read(); batch; batch = await reader.read()) {
        let failure: { error: unknown } | undefined;
        try {
          for (let i = 0; i < batch.length && !decoder.finished; i++) decoder.push(batch[i]!, out);
        } catch (error) {
          // What came before the bad event is still delivered, in order, then the error.
          failure = { error };
        }
        for (let i = 0; i < out.length; i++) yield out[i]!;
        out.length = 0;
        if (failure) throw failure.error;
        if (decoder.finished) return;
        // The idle clock measures the server, not a consumer that took its time between events.
        deadlines.read();
      }
    } finally {
      await reader.close();
    }
  } finally {
    deadlines.dispose();
  }
}
