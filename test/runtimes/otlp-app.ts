// The edge app of the OTLP end-to-end test: createAguiHandler with a gated transfer, TracingHook on a real
// BasicTracerProvider with a BatchSpanProcessor around the exporter the entry brings, a memory thread store and
// audit trail (kept by the isolate between requests). Each request's spans are flushed before it answers, so the
// receiver holds them when the test reads it (a Worker would rather `ctx.waitUntil(provider.forceFlush())`).
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import * as z from "zod/v4";
import { Agent, MemoryAuditLog, ScriptedModel, tool } from "kaboo-workflows";
import { createAguiHandler } from "kaboo-workflows/agui";
import { InterruptHook } from "kaboo-workflows/hooks";
import { acceptTraceparent, TracingHook } from "kaboo-workflows/otel";
import { MemoryThreadStore } from "kaboo-workflows/stores/memory";

/** Makes the app; `exporter` is called once, with the receiver's URL, on the first request. */
export function otlpApp(exporter: (url: string) => SpanExporter) {
  let app: { handle: (r: Request) => Promise<Response>; provider: BasicTracerProvider } | undefined;
  const audit = new MemoryAuditLog();
  const sent: unknown[] = [];
  const make = (url: string) => {
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter(url))] });
    const tracing = new TracingHook({ tracer: provider.getTracer("kaboo-otlp-e2e") });
    const transfer = tool({
      name: "transfer",
      description: "Sends money.",
      inputSchema: z.object({ to: z.string(), amount: z.number() }),
      callback: (input) => (sent.push(input), "sent"),
    });
    const handle = createAguiHandler({
      agent: (_threadId, { secret }) =>
        new Agent({
          name: "bank",
          model: new ScriptedModel({
            script: ({ lastToolResults }) =>
              lastToolResults.length
                ? { text: "done" }
                : { toolCalls: [{ name: "transfer", input: { to: "ann", amount: 5 }, id: "c1" }] },
          }),
          tools: [transfer],
          hooks: [tracing, new InterruptHook(["transfer"], { ...(secret ? { secret } : {}) })],
        }),
      trust: { secret: "otlp-e2e-secret", principal: () => "bob" },
      stores: { thread: new MemoryThreadStore(), audit },
      prepare: (state, request) => void acceptTraceparent(state, request.headers.get("traceparent")),
    });
    return { handle, provider };
  };
  return async function fetch(request: Request, env: { OTLP_URL: string }): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/audit") return Response.json({ entries: await audit.entries("th"), sent });
    app ??= make(env.OTLP_URL);
    const response = await app.handle(request);
    const body = await response.text();
    await app.provider.forceFlush();
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
