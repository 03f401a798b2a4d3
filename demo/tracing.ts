/**
 * The demo's traces: a `TracingHook` (from `kaboo-workflows/otel`, as an app would use it) on every runner,
 * over the real OpenTelemetry SDK with a span processor that keeps the finished spans in the page (no
 * exporter, no network). The activity panel's Trace view draws them. Loaded with the runner (the first
 * run) or when the Trace view is first opened, never with the page.
 */
import type { Context } from "@opentelemetry/api";
import { BasicTracerProvider, type ReadableSpan, type Span, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { TracingHook } from "kaboo-workflows/otel";

/** How many finished spans the page keeps (the oldest go first). */
const MAX_SPANS = 2000;

const finished: ReadableSpan[] = [];
const listeners = new Set<() => void>();

/** Keeps each finished span and tells the listeners (the Trace view, when it is open). */
class KeptSpans implements SpanProcessor {
  onStart(_span: Span, _parent: Context): void {}
  onEnd(span: ReadableSpan): void {
    finished.push(span);
    if (finished.length > MAX_SPANS) finished.splice(0, finished.length - MAX_SPANS);
    for (const listener of listeners) listener();
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const provider = new BasicTracerProvider({ spanProcessors: [new KeptSpans()] });

/** A tracing hook for one runner: its spans stay in this page. */
export function tracingHook(): TracingHook {
  return new TracingHook({ tracer: provider.getTracer("kaboo-demo") });
}

/** The spans finished in this page so far, oldest first. */
export function finishedSpans(): readonly ReadableSpan[] {
  return finished;
}

/**
 * Calls `listener` after each span ends.
 * @returns Stops listening.
 */
export function onSpanEnd(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
