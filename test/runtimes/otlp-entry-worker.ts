// workerd entry of the OTLP end-to-end test: the edge app exporting through the test's OTLP JSON exporter.
import { otlpApp } from "./otlp-app.js";
import { OtlpJsonExporter } from "./otlp-json-exporter.js";

export default { fetch: otlpApp((url) => new OtlpJsonExporter(url)) };
