/**
 * `kaboo-workflows/otel`: runs, model calls, tool calls and approvals as OpenTelemetry spans following the
 * GenAI semantic conventions. Needs only the optional peer `@opentelemetry/api`; bring your own SDK and
 * exporter (none is bundled).
 *
 * @module
 */
export { TracingHook } from "./tracing-hook.js";
export type { TracingHookOptions } from "./tracing-hook.js";
export type { PrincipalMode } from "./approval-spans.js";
export { acceptTraceparent } from "./parents.js";
export type { ParentOption } from "./parents.js";
export { GEN_AI, KABOO, KABOO_EVENTS } from "./attributes.js";
export { parentFromTraceparent, spanContextFromTraceparent, traceparentOf, TRACE_LINKS_KEY } from "./trace-links.js";
