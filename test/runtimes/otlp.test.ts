/**
 * OTLP end to end: an edge run in workerd (createAguiHandler, TracingHook, the real sdk-trace-base's
 * BatchSpanProcessor and `@opentelemetry/exporter-trace-otlp-http`'s Web build) exports its spans over HTTP to a
 * loopback OTLP receiver in this test, which checks the
 * payload: the span tree under each request's traceparent, the approval and the ledger's answer on the tool spans,
 * the link from the resumed call to the one that asked, and the audit entries naming the exported spans.
 * (The exporter is 0.223.1: the version built on sdk-trace 2.12, as sdk-trace-base 2.12 is, with api 1.9.)
 */
import { afterAll, beforeAll, describe, test } from "vitest";
import { checkPayload, edgeRunExported } from "./otlp-e2e.js";

describe("OTLP end to end from workerd, with @opentelemetry/exporter-trace-otlp-http", () => {
  let run: Awaited<ReturnType<typeof edgeRunExported>>;
  beforeAll(async () => {
    run = await edgeRunExported("otlp-entry-worker.ts");
  }, 60_000);
  afterAll(() => run?.server.close());

  test("an edge run's spans reach a loopback OTLP/HTTP receiver through the real BatchSpanProcessor and OTLPTraceExporter, as OTLP JSON the receiver checks", () => {
    checkPayload(run);
  });
});
