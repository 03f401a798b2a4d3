/**
 * AG-UI events as a Server-Sent Events body, with Web streams only
 * (`ReadableStream` + `TextEncoder`), for the edge handler.
 *
 * @module
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { KabooError, describe } from "../errors.js";

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
  return encoder.encode(`data: ${JSON.stringify(event)}\n\n`);
}

/** Options of {@link sseStream}. */
export interface SseStreamOptions {
  /** A comment is sent after this many ms without an event, and again every as many ms. `0` or less: none. Default 15000. */
  heartbeatMs?: number | undefined;
  /** Called once when the reader goes away before the end (the client disconnected). */
  onCancel?: ((reason: unknown) => void) | undefined;
}

function isTerminal(event: BaseEvent): boolean {
  return event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR;
}

/**
 * Streams AG-UI events as SSE bytes. Events are pulled one at a time (a slow reader slows the
 * run down instead of piling up frames); the stream closes after RUN_FINISHED or RUN_ERROR.
 * If the events throw, a RUN_ERROR frame ends the stream. A cancelled stream calls `onCancel`
 * and drains the events in the background so the producer's `finally` blocks still run.
 *
 * @param events - The run's events (e.g. from `runAgui`).
 * @param options - `heartbeatMs` (default 15000), `onCancel`.
 * @returns A byte stream for a `Response` body.
 * @example
 * ```ts
 * return new Response(sseStream(runAgui({ agent, input, signal })), { headers: SSE_HEADERS });
 * ```
 */
export function sseStream(events: AsyncIterable<BaseEvent>, options: SseStreamOptions = {}): ReadableStream<Uint8Array> {
  const iterator = events[Symbol.asyncIterator]();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let done = false;
  let timer: ReturnType<typeof setInterval> | undefined;

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

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return;
      // The timer lives only while we wait for the run, so a busy stream never pings.
      if (heartbeatMs > 0) timer = setInterval(() => !done && controller.enqueue(SSE_HEARTBEAT), heartbeatMs);
      let next: IteratorResult<BaseEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (done) return;
        stopTimer();
        controller.enqueue(encodeSseEvent(runError(error)));
        finish(controller);
        return;
      } finally {
        stopTimer();
      }
      // Cancelled while we waited: the reader is gone.
      if (done) return;
      if (next.done) return finish(controller);
      controller.enqueue(encodeSseEvent(next.value));
      if (isTerminal(next.value)) finish(controller);
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

function runError(error: unknown): BaseEvent {
  return {
    type: EventType.RUN_ERROR,
    timestamp: Date.now(),
    message: describe(error),
    code: error instanceof KabooError ? error.code : "RUN_FAILED",
  } as BaseEvent;
}
