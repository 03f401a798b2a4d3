// A small OTLP/HTTP JSON span exporter for the end-to-end test (not the package's: it ships no exporter): the
// spans the real BatchSpanProcessor hands it, as the OTLP JSON encoding of ExportTraceServiceRequest (ids in hex,
// times in nanoseconds as strings, attributes as AnyValue), posted with fetch to `url`.
import type { Attributes, AttributeValue, HrTime } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0];

const nanos = ([s, ns]: HrTime) => (BigInt(s) * 1_000_000_000n + BigInt(ns)).toString();

function anyValue(v: AttributeValue): unknown {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => anyValue(x as AttributeValue)) } };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

const keyValues = (attrs: Attributes | undefined) =>
  Object.entries(attrs ?? {}).flatMap(([key, v]) => (v === undefined ? [] : [{ key, value: anyValue(v) }]));

function otlpSpan(s: ReadableSpan) {
  const ctx = s.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    ...(s.parentSpanContext ? { parentSpanId: s.parentSpanContext.spanId } : {}),
    name: s.name,
    kind: s.kind + 1, // OTLP counts from SPAN_KIND_UNSPECIFIED = 0
    startTimeUnixNano: nanos(s.startTime),
    endTimeUnixNano: nanos(s.endTime),
    attributes: keyValues(s.attributes),
    events: s.events.map((e) => ({ timeUnixNano: nanos(e.time), name: e.name, attributes: keyValues(e.attributes) })),
    links: s.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      attributes: keyValues(l.attributes),
    })),
    status: { code: s.status.code, ...(s.status.message ? { message: s.status.message } : {}) },
  };
}

/** Posts each batch as one OTLP JSON request; a failed post fails the batch. */
export class OtlpJsonExporter implements SpanExporter {
  readonly #url: string;
  constructor(url: string) {
    this.#url = url;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const first = spans[0];
    const body = {
      resourceSpans: [
        {
          resource: { attributes: keyValues(first?.resource.attributes) },
          scopeSpans: [
            {
              scope: { name: first?.instrumentationScope.name ?? "", version: first?.instrumentationScope.version },
              spans: spans.map(otlpSpan),
            },
          ],
        },
      ],
    };
    fetch(this.#url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      .then((r) =>
        done({ code: r.ok ? 0 : 1, ...(r.ok ? {} : { error: new Error(`OTLP receiver: HTTP ${r.status}`) }) }),
      )
      .catch((error: Error) => done({ code: 1, error }));
  }

  async shutdown(): Promise<void> {}
}
