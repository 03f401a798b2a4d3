/** The real OpenTelemetry trace SDK with its in-memory exporter, and readers for the spans it kept. */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { TracingHook, type TracingHookOptions } from "../../src/otel/index.js";

export interface Tracing {
  hook: TracingHook;
  exporter: InMemorySpanExporter;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one finished span with this name (fails when there is not exactly one). */
  one(name: string): ReadableSpan;
  /** `child < parent` names of every finished span, for the tree. */
  tree(): string[];
}

export function tracing(options: Omit<TracingHookOptions, "tracer"> = {}): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const hook = new TracingHook({ tracer: provider.getTracer("kaboo-test"), ...options });
  const spans = () => exporter.getFinishedSpans();
  return {
    hook,
    exporter,
    spans,
    one(name) {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1) throw new Error(`${found.length} spans named "${name}": ${spans().map((s) => s.name)}`);
      return found[0] as ReadableSpan;
    },
    tree() {
      const all = spans();
      const byId = new Map(all.map((s) => [s.spanContext().spanId, s.name]));
      return all.map((s) => {
        const parent = s.parentSpanContext?.spanId;
        return `${s.name} < ${parent === undefined ? "root" : (byId.get(parent) ?? "remote")}`;
      });
    },
  };
}

/** Every attribute key of every span that starts with `prefix`. */
export function keysStarting(spans: readonly ReadableSpan[], prefix: string): string[] {
  return spans.flatMap((s) => Object.keys(s.attributes).filter((k) => k.startsWith(prefix)));
}
