/**
 * AG-UI events as a Server-Sent Events body, with Web streams only
 * (`ReadableStream` + `TextEncoder`), for the edge handler.
 *
 * @module
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { runError } from "../run-events.js";

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
}

function isTerminal(event: BaseEvent): boolean {
  return event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR;
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
 * @param options - `heartbeatMs` (default 15000), `onCancel`.
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
  const iterator = events[Symbol.asyncIterator]();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let done = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** A `next()` asked for while batching that was not ready yet: the next pull starts with it. */
  let pending: Promise<IteratorResult<E>> | undefined;

  const stopTimer = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    done = true;
    stopTimer();
    controller.close();
    // Lets the producer run its finally blocks; it has nothing left to say.
    void iterator.return?.().catch(() => undefined);
  };
  /** Enqueues `frames` as one chunk; closes after a terminal event or the end. */
  const flush = (controller: ReadableStreamDefaultController<Uint8Array>, frames: string, end: boolean) => {
    if (frames) controller.enqueue(encoder.encode(frames));
    if (end) finish(controller);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return;
      // The timer lives only while we wait for the run, so a busy stream never pings.
      if (heartbeatMs > 0) timer = setInterval(() => !done && controller.enqueue(SSE_HEARTBEAT), heartbeatMs);
      let next: IteratorResult<E>;
      try {
        next = await (pending ?? iterator.next());
      } catch (error) {
        if (done) return;
        stopTimer();
        controller.enqueue(encodeSseEvent(runError(error)));
        finish(controller);
        return;
      } finally {
        pending = undefined;
        stopTimer();
      }
      let frames = "";
      for (let count = 0; ; count++) {
        // Cancelled while we waited: the reader is gone.
        if (done) return;
        if (next.done) return flush(controller, frames, true);
        frames += frame(next.value, options.eventId?.(next.value));
        if (isTerminal(next.value)) return flush(controller, frames, true);
        if (count + 1 >= MAX_BATCH) break;
        pending = iterator.next();
        const ready = await ifReady(pending);
        if (ready === NOT_READY) break;
        pending = undefined;
        next = ready;
      }
      flush(controller, frames, false);
    },
    cancel(reason) {
      if (done) return;
      done = true;
      stopTimer();
      options.onCancel?.(reason);
      void (async () => {
        try {
          for (let r = await iterator.next(); !r.done; r = await iterator.next());
        } catch {
          // The run was abandoned; its error has no reader.
        }
      })();
    },
  });
}
