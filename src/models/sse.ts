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
  #queue: EventSourceMessage[] = [];
  #done = false;

  /**
   * @param body - The response body.
   * @param signal - Aborts reading.
   */
  constructor(body: ReadableStream<Uint8Array>, signal?: AbortSignal) {
    this.#reader = body.getReader();
    this.#signal = signal;
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
          { cause: e },
        );
      }
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) {
        this.#done = true;
        this.#parser.feed(this.#decoder.decode());
      } else this.#parser.feed(this.#decoder.decode(chunk.value, { stream: true }));
      if (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        return batch;
      }
    }
    return undefined;
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

/**
 * Opens a body and drives a decoder over it, with one async step per network
 * read and none between the decoder and the consumer.
 * @param open - Sends the request; resolves to the body once the response is OK.
 * @param decoder - The provider's decoder.
 * @param signal - Aborts reading.
 * @returns The decoded events (lazy: nothing is sent until the first `next()`);
 *   stopping early cancels the body.
 */
export async function* decodeSse<T>(
  open: () => Promise<ReadableStream<Uint8Array>>,
  decoder: StreamDecoder<T>,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const body = await open();
  const out: T[] = [];
  decoder.start?.(out);
  for (let i = 0; i < out.length; i++) yield out[i]!;
  out.length = 0;
  const reader = new SseReader(body, signal);
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
    }
  } finally {
    await reader.close();
  }
}
