// workerd entry of the OTLP end-to-end test: the edge app exporting through the real @opentelemetry/exporter-trace-otlp-http (its Web
// build: fetch), behind the same BatchSpanProcessor.
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { otlpApp } from "./otlp-app.js";

export default { fetch: otlpApp((url) => new OTLPTraceExporter({ url })) };
