/**
 * A response body as server-sent events, parsed by `eventsource-parser`.
 *
 * @module
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ModelStreamError } from "../errors.js";

export type { EventSourceMessage };

/**
 * Reads a response body as SSE events, in arrival order.
 *
 * Ends when the body ends; an event cut off by the end of the body is dropped
 * (as the SSE spec says), so a truncated stream is never patched up here. When
 * the consumer stops early or the signal aborts, the body is cancelled so the
 * connection closes at once.
 *
 * @param body - The response body.
 * @param signal - Aborts reading (the reader is cancelled, the pending read settles).
 * @returns An async iterable of events.
 * @throws The signal's reason on abort; ModelStreamError when the connection breaks.
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => void queue.push(event) });
  // An injected fetch may ignore the signal; cancelling the reader makes the pending read settle anyway.
  const onAbort = (): void => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let done = false;
  try {
    while (true) {
      if (signal?.aborted) throw signal.reason;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw new ModelStreamError(`The connection broke while the model was streaming: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) {
        done = true;
        parser.feed(decoder.decode());
      } else parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        for (const event of batch) yield event;
      }
      if (done) return;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
