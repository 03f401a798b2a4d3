/**
 * What the edge handler refuses before a run starts: bodies that are too large, JSON nested too
 * deep for the run to copy and stream safely; and a logger that never echoes a client's string
 * at full length.
 *
 * @module
 */
import { withinDepth } from "../../agent/json-depth.js";
import type { Logger } from "../../logger.js";

/** Default largest request body the handler reads: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default deepest nesting of `state`, `forwardedProps` and `resume`. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Longest client-derived string a log line carries before it is cut. */
export const LOG_STRING_LIMIT = 300;

/**
 * Reads a body as text, stopping as soon as it passes `maxBytes` (a declared `content-length`
 * over the limit is refused without reading).
 *
 * @param request - The incoming request.
 * @param maxBytes - The limit in bytes.
 * @returns `{ text }`, or `{ tooLarge: true }`.
 */
export async function readBodyWithin(
  request: Request,
  maxBytes: number,
): Promise<{ text: string } | { tooLarge: true }> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) return { tooLarge: true };
  if (!request.body) return { text: "" };
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: true };
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return { text: new TextDecoder().decode(bytes) };
}

/**
 * Which part of a run body nests too deep: `state`, `forwardedProps` or `resume` past `max`, or
 * the whole body past `max + 8` (messages and tools wrap their values a few levels down).
 *
 * @param body - The parsed body.
 * @param max - The deepest nesting allowed.
 * @returns The part's name, or `undefined` when none is too deep.
 */
export function tooDeepPart(body: unknown, max: number): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ["state", "forwardedProps", "resume"]) if (!withinDepth(b[key], max)) return key;
  return withinDepth(body, max + 8) ? undefined : "the body";
}

/**
 * Cuts a string to `limit` characters, saying how much was cut.
 *
 * @param text - Any text.
 * @param limit - Default {@link LOG_STRING_LIMIT}.
 * @returns The text, or its start and `… (N more characters)`.
 */
export function truncate(text: string, limit: number = LOG_STRING_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/**
 * A logger that cuts every message and every string in its data (one level deep) to
 * {@link LOG_STRING_LIMIT}: messages at the edge quote what clients sent.
 *
 * @param log - Where lines go.
 * @returns The bounded logger.
 */
export function boundedLogger(log: Logger): Logger {
  const bound =
    (write: (message: string, data?: Record<string, unknown>) => void) =>
    (message: string, data?: Record<string, unknown>) => {
      if (data === undefined) return write(truncate(message));
      write(
        truncate(message),
        Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? truncate(v) : v])),
      );
    };
  const out: Logger = { warn: bound(log.warn.bind(log)), error: bound(log.error.bind(log)) };
  if (log.debug) out.debug = bound(log.debug.bind(log));
  return out;
}
