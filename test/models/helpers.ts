// A loopback HTTP server that replays queued replies, and small helpers for the model tests.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { assembleResponse } from "../../src/agent/assemble-response.js";
import type { ModelStreamEvent } from "../../src/agent/model.js";

/** One reply of the server. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Written piece by piece, with a pause between pieces so the client reads them separately. */
  chunks?: string[];
  /** Keep the response open after the chunks (the client must abort). */
  hang?: boolean;
  /** Destroy the socket after the chunks (a broken connection). */
  destroy?: boolean;
  /** After the chunks, write this piece every `everyMs` until the client goes away (a keep-alive that never ends). */
  repeat?: { piece: string; everyMs: number };
  /** Never send the response headers. */
  silent?: boolean;
}

/** A request the server received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface TestServer {
  url: string;
  received: Received[];
  /** How many responses were closed (finished or torn down). */
  closed: () => number;
  reply: (...replies: Reply[]) => void;
  close: () => Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const queue: Reply[] = [];
  const received: Received[] = [];
  let closed = 0;
  const server = createServer(async (req, res: ServerResponse) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    res.on("close", () => closed++);
    const reply = queue.shift() ?? { status: 500, chunks: ['{"error":{"message":"no reply queued"}}'] };
    if (reply.silent) return;
    res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
    for (const piece of reply.chunks ?? []) {
      if (res.destroyed) return;
      res.write(piece);
      await new Promise((r) => setTimeout(r, 1));
    }
    if (reply.repeat) {
      const { piece, everyMs } = reply.repeat;
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(piece)), everyMs);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (reply.hang) return;
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    closed: () => closed,
    reply: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The loopback server of one test file: started before its tests, its `received` emptied before
 * each test, closed after them all.
 */
export function loopbackServer(): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startServer();
  });
  beforeEach(() => {
    if (started) started.received.length = 0;
  });
  afterAll(() => started?.close());
  const server = () => {
    if (!started) throw new Error("the loopback server starts before the file's tests");
    return started;
  };
  return {
    get url() {
      return server().url;
    },
    get received() {
      return server().received;
    },
    closed: () => server().closed(),
    reply: (...replies) => server().reply(...replies),
    close: () => server().close(),
  };
}

/** The tool the provider tests offer, as a spec. */
export const weatherSpec = {
  name: "get_weather",
  description: "Weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
};

/** The user turn the provider tests send. */
export const weatherQuestion = [
  { role: "user" as const, content: [{ type: "text" as const, text: "Weather in Oslo and Rome?" }] },
];

/** A model stream assembled into one response, as the runner does (no listener, zero metrics). */
export const assemble = (events: AsyncIterable<ModelStreamEvent>) =>
  assembleResponse(
    events,
    () => {},
    { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } } as never,
    undefined,
  );

/** The events each provider's `text.sse` fixture streams ("Hello, wörld ✓"), with that provider's usage. */
export function textEvents(usage: Record<string, number>): ModelStreamEvent[] {
  return [
    { type: "messageStart", role: "assistant" },
    { type: "contentBlockStart", index: 0, start: { type: "text" } },
    { type: "contentBlockDelta", index: 0, delta: { type: "text", text: "Hello" } },
    { type: "contentBlockDelta", index: 0, delta: { type: "text", text: ", wörld ✓" } },
    { type: "contentBlockStop", index: 0 },
    { type: "messageStop", stopReason: "endTurn" },
    { type: "metadata", usage },
  ] as ModelStreamEvent[];
}

/** Reads a fixture file. */
export function fixture(provider: "openai" | "anthropic", name: string): string {
  return readFileSync(new URL(`./fixtures/${provider}/${name}`, import.meta.url), "utf8");
}

/** An SSE reply streaming a transcript event by event. */
export function sseReply(text: string, extra: Omit<Reply, "chunks"> = {}): Reply {
  const events = text.split(/(?<=\n\n)/);
  return { ...extra, chunks: events };
}

/** A JSON error reply. */
export function jsonReply(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": "application/json", ...headers }, chunks: [body] };
}

/** Collects every event of a model stream. */
export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** A fetch answering every call with the given bytes, split into the given pieces. */
export function bytesFetch(pieces: Uint8Array[], contentType = "text/event-stream"): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const p of pieces) controller.enqueue(p);
          controller.close();
        },
      }),
      { status: 200, headers: { "content-type": contentType } },
    );
}
