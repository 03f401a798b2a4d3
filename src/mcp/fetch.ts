/**
 * The fetch under the MCP transport: bounds the wait for response headers, and closes the
 * response stream of a request the client gave up on.
 *
 * The SDK's transport opens one HTTP response per JSON-RPC request and keeps reading it until
 * the server ends it; when a request times out or is aborted it only sends
 * `notifications/cancelled`. A hostile or stuck server keeps that response open, so this fetch
 * watches the cancellations go by and aborts the matching response itself.
 *
 * @module
 */
import { linkedAbort, type LinkedAbort } from "../agent/shared/abort.js";

type RpcId = string | number;

/**
 * Wraps a fetch for the MCP transport.
 * @param base - The fetch to call.
 * @param headersTimeoutMs - Longest wait for a response's headers; the request is then aborted.
 * @returns A fetch with the same signature.
 */
export function boundedMcpFetch(base: typeof globalThis.fetch, headersTimeoutMs: number): typeof globalThis.fetch {
  const open = new Map<RpcId, LinkedAbort>();
  return async (input, init = {}) => {
    const messages = rpcMessages(init.body);
    for (const m of messages) {
      const id = m.method === "notifications/cancelled" ? m.params?.requestId : undefined;
      if (id === undefined) continue;
      open.get(id)?.abort(new Error("The MCP request was cancelled."));
      open.delete(id);
    }
    const ids = messages.flatMap((m) => (m.method !== undefined && m.id !== undefined ? [m.id] : []));
    const controller = linkedAbort(init.signal ?? undefined);
    for (const id of ids) open.set(id, controller);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      controller.unlink();
      for (const id of ids) if (open.get(id) === controller) open.delete(id);
    };
    const timer = setTimeout(
      () => controller.abort(new Error(`The MCP server sent no response headers within ${headersTimeoutMs} ms.`)),
      headersTimeoutMs,
    );
    let response: Response;
    try {
      response = await base(input, { ...init, signal: controller.signal });
    } catch (error) {
      finish();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (!response.body) {
      finish();
      return response;
    }
    return new Response(watched(response.body, finish), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The body, calling `finish` once when it ends, fails or is cancelled. */
function watched(body: ReadableStream<Uint8Array>, finish: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          finish();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
}

interface RpcMessage {
  id?: RpcId;
  method?: string;
  params?: { requestId?: RpcId };
}

function rpcMessages(body: unknown): RpcMessage[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter((m): m is RpcMessage => typeof m === "object" && m !== null);
}
