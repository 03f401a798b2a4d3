/**
 * What the edge handler refuses before a run starts: bodies that are too large, JSON nested too
 * deep for the run to copy and stream safely; and a logger that never echoes a client's string
 * at full length.
 *
 * @module
 */
import { deepestPart } from "../../../agent/shared/json-depth.js";
import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringEnd } from "./json-scan.js";
import type { Logger } from "../../../logger.js";

/** Default largest request body the handler reads: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default deepest nesting of `state`, `forwardedProps` and `resume`. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const decoder = new TextDecoder();

/** Longest client-derived string a log line carries before it is cut. */
export const LOG_STRING_LIMIT = 300;

/**
 * Reads a body as text, counting bytes as they arrive and cancelling the source as soon as they pass
 * `maxBytes`, whatever the body's `content-length` says (a declared length over the limit is refused
 * without reading; one within it is not trusted: a body that says less than it holds is cut off at the
 * limit, not read to its end).
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
  // Most small bodies arrive in one chunk: decoded as it is, without a copy.
  if (parts.length === 1) return { text: decoder.decode(parts[0]) };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return { text: decoder.decode(bytes) };
}

/** Default most JSON values a body may hold (about: separators and containers are counted): 100,000. */
export const DEFAULT_MAX_JSON_VALUES = 100_000;

/**
 * Default most keys of one object in a body: 500. Past several hundred keys V8 keeps an object as
 * a dictionary, and parsing, walking and writing it back cost several times more per key.
 */
export const DEFAULT_MAX_OBJECT_KEYS = 500;

/**
 * What makes a body's JSON too costly to parse, said before it is parsed: more than `maxValues`
 * values in all (every object and array, and every value after a comma, counts one), an object with more than `maxObjectKeys` keys, or nesting past `maxDepth`. One
 * scan of the text (strings skipped with `indexOf`), because parsing itself is the cost: a 1 MiB
 * object of 120,000 keys takes V8 30 times as long to parse and write back as a 1 MiB string.
 *
 * @param text - The body as received.
 * @param bounds - `maxValues`, `maxObjectKeys`, `maxDepth` (levels of objects and arrays).
 * @returns The 400's `error` (`too_deep` or `too_complex`) and a sentence for its `detail`, or
 *   `undefined` (malformed JSON is left to the parser).
 */
export function tooComplexJson(
  text: string,
  bounds: { maxValues: number; maxObjectKeys: number; maxDepth: number },
): { error: "too_deep" | "too_complex"; detail: string } | undefined {
  const complex = (detail: string) => ({ error: "too_complex" as const, detail });
  // Per open container: its key count (objects) or -1 (arrays).
  const open: number[] = [];
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return undefined;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      // A container is a value too: nesting with no commas at all still counts.
      if (++values > bounds.maxValues) return complex(`The body holds more than ${bounds.maxValues} JSON values.`);
      open.push(c === OPEN_OBJECT ? 0 : -1);
      if (open.length > bounds.maxDepth)
        return { error: "too_deep", detail: `The body's JSON nests deeper than ${bounds.maxDepth} levels.` };
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) open.pop();
    else if (c === COMMA) {
      if (++values > bounds.maxValues) return complex(`The body holds more than ${bounds.maxValues} JSON values.`);
    } else if (c === COLON && open.length > 0) {
      const at = open.length - 1;
      const keys = (open[at] as number) + 1;
      open[at] = keys;
      if (keys > bounds.maxObjectKeys)
        return complex(`An object in the body has more than ${bounds.maxObjectKeys} keys.`);
    }
  }
  return undefined;
}

/**
 * Which part of a run body nests too deep: `state`, `forwardedProps` or `resume` past `max`, or
 * the whole body past `max + 8` (messages and tools wrap their values a few levels down). One walk
 * over the body, whatever its shape.
 *
 * @param body - The parsed body.
 * @param max - The deepest nesting allowed.
 * @returns The part's name, or `undefined` when none is too deep.
 */
export function tooDeepPart(body: unknown, max: number): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  if (Array.isArray(body)) return deepestPart([body], [max + 8]) === -1 ? undefined : "the body";
  const b = body as Record<string, unknown>;
  const names: string[] = [];
  const values: unknown[] = [];
  const bounds: number[] = [];
  for (const key in b) {
    names.push(PARTS.has(key) ? key : "the body");
    values.push(b[key]);
    // The body itself is one level: what it holds may nest max + 7 more.
    bounds.push(PARTS.has(key) ? max : max + 7);
  }
  const at = deepestPart(values, bounds);
  return at === -1 ? undefined : names[at];
}

const PARTS = new Set(["state", "forwardedProps", "resume"]);

/** Default most entries of each list of a run body (see {@link tooManyEntries}). */
export const DEFAULT_MAX_ENTRIES = { messages: 2_000, tools: 128, context: 256, resume: 256 } as const;

/** Most entries of each list of a run body. */
export interface MaxEntries {
  /** Default 2,000. */
  messages?: number | undefined;
  /** Default 128 (OpenAI's own limit on tools). */
  tools?: number | undefined;
  /** Default 256. */
  context?: number | undefined;
  /** Default 256. */
  resume?: number | undefined;
}

/**
 * Which list of a run body is longer than allowed, in plain words, before any schema reads it:
 * the schema's cost (and the issues it lists for a bad entry) grows with each list.
 * @param body - The parsed body.
 * @param max - The bounds. Default {@link DEFAULT_MAX_ENTRIES}.
 * @returns A sentence for the 400's `detail`, or `undefined`.
 */
export function tooManyEntries(body: unknown, max: MaxEntries = {}): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ["messages", "tools", "context", "resume"] as const) {
    const list = b[key];
    const most = max[key] ?? DEFAULT_MAX_ENTRIES[key];
    if (Array.isArray(list) && list.length > most)
      return `The body has ${list.length} ${key} entries; this endpoint takes at most ${most}.`;
  }
  return undefined;
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

/** Longest `threadId` or `runId` a body may carry, in UTF-8 bytes: store keys hold them (Deno KV keys: 2 KiB). */
export const MAX_ID_BYTES = 512;

const idEncoder = new TextEncoder();

/** The ids of a body that stores key by: a run's `threadId` / `runId`, and those of a Stop or a reattach. */
function bodyIds(body: unknown): [string, unknown][] {
  if (typeof body !== "object" || body === null) return [];
  const b = body as Record<string, unknown>;
  const nested = (key: string) => {
    const inner = b[key];
    return typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : undefined;
  };
  return [
    ["threadId", b["threadId"]],
    ["runId", b["runId"]],
    ["kaboo_cancel.threadId", nested("kaboo_cancel")?.["threadId"]],
    ["kaboo_cancel.runId", nested("kaboo_cancel")?.["runId"]],
    ["kaboo_connect.threadId", nested("kaboo_connect")?.["threadId"]],
    ["kaboo_connect.runId", nested("kaboo_connect")?.["runId"]],
  ];
}

/**
 * Which id of a body (a run's `threadId` / `runId`, or the `threadId` of a Stop or a reattach) is longer
 * than {@link MAX_ID_BYTES}, in plain words. Thread stores key their records by these ids, and a key
 * the platform refuses would fail the run half way instead of at the door.
 * @param body - The parsed body.
 * @returns A sentence for the 400's `detail`, or `undefined`.
 */
export function tooLongId(body: unknown): string | undefined {
  for (const [name, value] of bodyIds(body))
    if (typeof value === "string" && idTooLong(value))
      return `${name} is longer than allowed: at most ${MAX_ID_BYTES} bytes.`;
  return undefined;
}

/**
 * Whether `id` is longer than {@link MAX_ID_BYTES} in UTF-8.
 * @param id - A thread or run id (untrusted).
 * @returns `true` when a store could not key a record by it.
 */
export function idTooLong(id: string): boolean {
  // A string's UTF-8 length is at most 3 bytes a UTF-16 unit: short ones need no encoding.
  return id.length * 3 > MAX_ID_BYTES && idEncoder.encode(id).length > MAX_ID_BYTES;
}

/**
 * Which id of a body holds a line break or a NUL. A run id goes out in every SSE frame's `id:` line,
 * and a thread's runs are watched by more than their sender (the owner reattaching to a run an
 * approver started): a line break in it would write frames of the sender's choosing into their stream.
 * @param body - The parsed body.
 * @returns A sentence for the 400's `detail`, or `undefined`.
 */
export function badIdCharacter(body: unknown): string | undefined {
  for (const [name, value] of bodyIds(body))
    if (typeof value === "string" && /[\r\n\0]/.test(value)) return `${name} holds a line break or a NUL character.`;
  return undefined;
}

/** Thread ids of the package's own audit trails: `grantsAuditThread(principal)` in `grants/store.ts`. */
const RESERVED_THREAD_PREFIX = "kaboo:grants:";

/**
 * Which thread id of a body names one of the package's own audit trails (`kaboo:grants:<principal>`,
 * where a person's revocations are recorded). A client names its thread ids, and a run on such a
 * thread would write its questions and answers into another person's grant trail.
 * @param body - The parsed body.
 * @returns A sentence for the 400's `detail`, or `undefined`.
 */
export function reservedThreadId(body: unknown): string | undefined {
  for (const [name, value] of bodyIds(body)) {
    if (name.endsWith("threadId") && typeof value === "string" && value.startsWith(RESERVED_THREAD_PREFIX))
      return `${name} starts with ${JSON.stringify(RESERVED_THREAD_PREFIX)}, the name of a person's grant audit trail.`;
  }
  return undefined;
}
