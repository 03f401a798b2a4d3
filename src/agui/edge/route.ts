/**
 * The Worker's half of a run hosted in its thread's Durable Object: read the body (bounded), find
 * the thread it names, and forward the request to that thread's object, which runs it. The
 * request only watches the run: a client that goes away does not stop it.
 *
 * @module
 */
import type { DurableObjectNamespaceLike } from "../../stores/durable-object/binding.js";
import { HOSTED_RUN_PATH } from "../../stores/durable-object/binding.js";
import { CANCEL_KEY } from "./run/cancel.js";
import { CONNECT_KEY } from "./run/connect.js";
import { topLevelValues } from "./request/json-scan.js";
import { isObject } from "../../agent/shared/guards.js";
import { DEFAULT_MAX_BODY_BYTES, readBodyWithin } from "./request/limits.js";

/** Options of {@link forwardToThread}. */
export interface ForwardToThreadOptions {
  /** Largest body forwarded, in bytes (the handler in the object applies its own limit too). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Prefix of the object names, as given to `DurableObjectThreadStore`. Default `""`. */
  prefix?: string;
}

/**
 * Forwards an AG-UI request (a run, a Stop, a reattach) to the Durable Object of the thread it
 * names (`threadId`, `kaboo_cancel.threadId` or `kaboo_connect.threadId`). A preflight or a body that names no thread goes
 * to the object named by the prefix alone, whose handler answers it (CORS, 400). That is the
 * Worker's only Durable Object round trip before the run's first event.
 *
 * @param request - The incoming request.
 * @param namespace - The binding of your hosting `KabooThread` subclass.
 * @param options - `maxBodyBytes` (1 MiB), `prefix` (`""`).
 * @returns The object's response (the run's SSE stream, or a JSON answer); 413 for a body over the limit.
 * @example
 * ```ts
 * export default { fetch: (request: Request, env: Env) => forwardToThread(request, env.KABOO_THREAD) };
 * ```
 */
export async function forwardToThread(
  request: Request,
  namespace: DurableObjectNamespaceLike,
  options: ForwardToThreadOptions = {},
): Promise<Response> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const read = request.method === "POST" ? await readBodyWithin(request, maxBytes) : { text: "" };
  if ("tooLarge" in read) {
    return Response.json(
      { error: "body_too_large", detail: `The body is larger than ${maxBytes} bytes.` },
      { status: 413, headers: { "content-type": "application/json; charset=utf-8" } },
    );
  }
  const name = (options.prefix ?? "") + (threadOf(read.text) ?? "");
  const stub = namespace.get(namespace.idFromName(name) as never);
  const url = new URL(request.url);
  const forwarded = new Request(`https://kaboo-thread.internal${HOSTED_RUN_PATH}${url.search}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === "POST" ? read.text : null,
  });
  return stub.fetch(forwarded);
}

/**
 * The thread a body names, in the order the handler reads a body (a Stop, then a reattach, then a
 * run), without trusting anything else in it (the object's handler validates it). A small body is
 * parsed (natively: on Workers a scan in JavaScript costs as much as the handler's whole check of a
 * small run); a larger one is read from its top level without parsing it: the object's handler
 * bounds a body's cost before it parses one, and a parse here would spend that cost first (a 1 MiB
 * body of 350,000 empty objects takes V8 about 40 times as long to parse as a 1 MiB string).
 */
function threadOf(text: string): string | undefined {
  return text.length <= PARSE_UP_TO ? parsedThreadOf(text) : scannedThreadOf(text);
}

/** Bodies up to this many characters are parsed to find their thread (at most a few thousand values). */
const PARSE_UP_TO = 8_192;

function parsedThreadOf(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const inner = Object.hasOwn(body, CANCEL_KEY)
    ? body[CANCEL_KEY]
    : Object.hasOwn(body, CONNECT_KEY)
      ? body[CONNECT_KEY]
      : body;
  const id = isObject(inner) ? inner.threadId : undefined;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function scannedThreadOf(text: string): string | undefined {
  const top = topLevelValues(text, ROUTED_KEYS);
  const inner = top.get(CANCEL_KEY) ?? top.get(CONNECT_KEY);
  const id = inner ? (inner.value as { threadId?: unknown } | null)?.threadId : top.get("threadId")?.value;
  return typeof id === "string" && id !== "" ? id : undefined;
}

const ROUTED_KEYS = [CANCEL_KEY, CONNECT_KEY, "threadId"];
