/**
 * The Worker's half of a run hosted in its thread's Durable Object: read the body (bounded), find
 * the thread it names, and forward the request to that thread's object, which runs it. The
 * request only watches the run: a client that goes away does not stop it.
 *
 * @module
 */
import type { DurableObjectNamespaceLike } from "../../stores/durable-object-binding.js";
import { HOSTED_RUN_PATH } from "../../stores/durable-object-binding.js";
import { CANCEL_KEY } from "./cancel.js";
import { CONNECT_KEY } from "./connect.js";
import { DEFAULT_MAX_BODY_BYTES, readBodyWithin } from "./limits.js";

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

/** The thread a body names, without trusting anything else in it (the object's handler validates it). */
function threadOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as {
      threadId?: unknown;
      [CANCEL_KEY]?: { threadId?: unknown };
      [CONNECT_KEY]?: { threadId?: unknown };
    };
    const id = body?.threadId ?? body?.[CANCEL_KEY]?.threadId ?? body?.[CONNECT_KEY]?.threadId;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}
