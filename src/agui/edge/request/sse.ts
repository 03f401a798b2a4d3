/**
 * AG-UI events as a Server-Sent Events body, with Web streams only
 * (`ReadableStream` + `TextEncoder`), for the edge handler.
 *
 * @module
 */
import type { AGUIEvent, BaseEvent } from "@ag-ui/core";
import { isTerminal, runError } from "../../run-events.js";

const encoder = new TextEncoder();

/** Response headers of an SSE body. `no-transform` and `x-accel-buffering` keep proxies from buffering it. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** The heartbeat: an SSE comment, which every client ignores (`: ping\n\n`). */
export const SSE_HEARTBEAT: Uint8Array = encoder.encode(": ping\n\n");

/**
 * One event as an SSE frame: `data: <json>\n\n`. `JSON.stringify` escapes every
 * line break, so the frame is always a single `data:` line.
 *
 * @param event - Any JSON-serialisable event.
 * @returns The UTF-8 bytes of the frame.
 * @example
 * ```ts
 * controller.enqueue(encodeSseEvent({ type: "RUN_STARTED", threadId, runId }));
 * ```
 */
export function encodeSseEvent(event: unknown): Uint8Array {
  return encoder.encode(frame(event));
}

function frame(event: unknown, id?: string): string {
  // An `id:` line lets a client that lost the stream say where it was (Last-Event-ID).
  return id === undefined ? `data: ${JSON.stringify(event)}\n\n` : `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Options of {@link sseStream}, for a stream of `E` (any AG-UI event; the edge's are the protocol's union). */
export interface SseStreamOptions<E extends BaseEvent = BaseEvent> {
  /** A comment is sent after this many ms without an event, and again every as many ms. `0` or less: none. Default 15000. */
  heartbeatMs?: number | undefined;
  /** Called once when the reader goes away before the end (the client disconnected). */
  onCancel?: ((reason: unknown) => void) | undefined;
  /** The SSE `id:` of an event (its place in the thread's event log). Default: no ids. */
  eventId?: ((event: E) => string | undefined) | undefined;
  /**
   * Called once when the reader has taken the stream's first chunk (it asks for the next one), or
   * goes away before. A run hosted in a Durable Object begins then (see `createAguiHandler`).
   */
  onFirstRead?: (() => void) | undefined;
  /**
   * An event the stream starts with, before `events` (which then do not hold it): its frame is the
   * first chunk, there as soon as the stream is (a hosted run's RUN_STARTED).
   */
  first?: E | undefined;
}

/** Most frames joined into one chunk, so a fast run still reaches the reader in steady pieces. */
const MAX_BATCH = 256;
/**
 * Microtask turns an event may take to be "ready": a run's async generators hand over an event that
 * is already there within a few turns, while one that waits for the network takes a macrotask.
 */
const READY_TURNS = 6;
const NOT_READY: unique symbol = Symbol("not ready");

/** The iterator's result if it settles within {@link READY_TURNS} microtask turns, else NOT_READY. */
async function ifReady<T>(next: Promise<IteratorResult<T>>): Promise<IteratorResult<T> | typeof NOT_READY> {
  let out: IteratorResult<T> | typeof NOT_READY = NOT_READY;
  // A rejection is left to whoever awaits `next` later; here it only means "not ready".
  next.then(
    (r) => {
      out = r;
    },
    () => undefined,
  );
  for (let i = 0; i < READY_TURNS && out === NOT_READY; i++) await undefined;
  return out;
}

/**
 * Streams AG-UI events as SSE bytes. Each pull waits for one event, then takes the events that are
 * already there (up to 256), and enqueues their frames as one chunk: one encode and one read for
 * a burst instead of a promise round trip per event, and no added latency when the run is waiting
 * (a slow reader still slows the run down instead of piling up frames). The stream closes after
 * RUN_FINISHED or RUN_ERROR. If the events throw, a RUN_ERROR frame ends the stream. A cancelled
 * stream calls `onCancel` and drains the events in the background so the producer's `finally`
 * blocks still run.
 *
 * @typeParam E - The events' type: any AG-UI event (the edge handler streams the protocol's union, `AGUIEvent`).
 * @param events - The run's events (e.g. from `runAgui`).
 * @param options - `heartbeatMs` (default 15000), `onCancel`, `eventId`, `onFirstRead`, `first`.
 * @returns A byte stream for a `Response` body.
 * @example
 * ```ts
 * return new Response(sseStream(runAgui({ agent, input, signal })), { headers: SSE_HEADERS });
 * ```
 */
export function sseStream<E extends BaseEvent = BaseEvent>(
  events: AsyncIterable<E>,
  options: SseStreamOptions<E> = {},
): ReadableStream<Uint8Array> {
  const pump = new SsePump(events[Symbol.asyncIterator](), options);
  return new ReadableStream<Uint8Array>({
    start: (c) => pump.start(c),
    pull: (c) => pump.pull(c),
    cancel: (reason) => pump.cancel(reason),
  });
}

type Controller = ReadableStreamDefaultController<Uint8Array>;

/** One SSE stream's pulls: the run's iterator, the heartbeat while it waits, and a `next()` asked ahead. */
class SsePump<E extends BaseEvent> {
  readonly #iterator: AsyncIterator<E>;
  readonly #options: SseStreamOptions<E>;
  readonly #heartbeatMs: number;
  #done = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** A `next()` asked for while batching that was not ready yet: the next pull starts with it. */
  #pending: Promise<IteratorResult<E>> | undefined;
  /** A chunk was enqueued: the next pull means the reader took it. */
  #sent = false;
  /** Told once, when the reader took the first chunk or went away. */
  #onFirstRead: (() => void) | undefined;

  constructor(iterator: AsyncIterator<E>, options: SseStreamOptions<E>) {
    this.#iterator = iterator;
    this.#options = options;
    this.#onFirstRead = options.onFirstRead;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
  }

  start(controller: Controller): void {
    const first = this.#options.first;
    if (first !== undefined) this.#flush(controller, frame(first, this.#options.eventId?.(first)), false);
  }

  async pull(controller: Controller): Promise<void> {
    if (this.#sent) this.#firstRead();
    if (this.#done) return;
    const first = await this.#first(controller);
    if (first !== undefined) await this.#batch(controller, first);
  }

  cancel(reason: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#stopTimer();
    this.#firstRead();
    this.#options.onCancel?.(reason);
    const iterator = this.#iterator;
    void (async () => {
      try {
        for (let r = await iterator.next(); !r.done; r = await iterator.next());
      } catch {
        // The run was abandoned; its error has no reader.
      }
    })();
  }

  /**
   * The pull's first event, with the heartbeat running while we wait for the run (so a busy stream
   * never pings). `undefined` when the run threw: its RUN_ERROR frame has ended the stream.
   */
  async #first(controller: Controller): Promise<IteratorResult<E> | undefined> {
    const next = this.#pending ?? this.#iterator.next();
    // An event already there needs no heartbeat (a timer per pull is a cost on Workers).
    const ready = await ifReady(next);
    if (ready !== NOT_READY) {
      this.#pending = undefined;
      return ready;
    }
    if (this.#heartbeatMs > 0 && !this.#done)
      this.#timer = setInterval(() => !this.#done && controller.enqueue(SSE_HEARTBEAT), this.#heartbeatMs);
    try {
      return await next;
    } catch (error) {
      if (this.#done) return undefined;
      this.#stopTimer();
      controller.enqueue(encodeSseEvent(runError(error)));
      this.#finish(controller);
      return undefined;
    } finally {
      this.#pending = undefined;
      this.#stopTimer();
    }
  }

  /** Frames `next` and the events already there after it, up to {@link MAX_BATCH}, as one chunk. */
  async #batch(controller: Controller, next: IteratorResult<E>): Promise<void> {
    let frames = "";
    for (let count = 0; ; count++) {
      // Cancelled while we waited: the reader is gone.
      if (this.#done) return;
      if (next.done) return this.#flush(controller, frames, true);
      frames += frame(next.value, this.#options.eventId?.(next.value));
      if (isTerminal(next.value)) return this.#flush(controller, frames, true);
      if (count + 1 >= MAX_BATCH) break;
      this.#pending = this.#iterator.next();
      const ready = await ifReady(this.#pending);
      if (ready === NOT_READY) break;
      this.#pending = undefined;
      next = ready;
    }
    this.#flush(controller, frames, false);
  }

  #firstRead(): void {
    const told = this.#onFirstRead;
    this.#onFirstRead = undefined;
    told?.();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #finish(controller: Controller): void {
    this.#done = true;
    this.#stopTimer();
    controller.close();
    // Lets the producer run its finally blocks; it has nothing left to say.
    void this.#iterator.return?.().catch(() => undefined);
  }

  /** Enqueues `frames` as one chunk; closes after a terminal event or the end. */
  #flush(controller: Controller, frames: string, end: boolean): void {
    if (frames) {
      controller.enqueue(encoder.encode(frames));
      this.#sent = true;
    }
    if (end) this.#finish(controller);
  }
}

/**
 * The handler's SSE response: `events` as a stream (heartbeats while quiet), with the SSE headers and `cors`.
 * @param events - The run's events.
 * @param options - The handler's `heartbeatMs`.
 * @param cors - CORS headers.
 * @param controller - Aborted when the reader cancels (a run that is the request's).
 * @param id - Each event's SSE id.
 * @param started - A RUN_STARTED that went out first, and what its first read starts.
 * @returns The response.
 */
export function sseResponse(
  events: AsyncIterable<AGUIEvent>,
  options: { heartbeatMs?: number | undefined },
  cors: Record<string, string>,
  controller?: { abort(reason?: unknown): void },
  id?: (event: AGUIEvent) => string | undefined,
  started?: { first: AGUIEvent; onFirstRead: () => void },
): Response {
  const stream = sseStream(events, {
    heartbeatMs: options.heartbeatMs,
    onCancel: (reason) => controller?.abort(reason),
    eventId: id,
    ...started,
  });
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...cors } });
}
