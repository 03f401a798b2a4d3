/**
 * How a failure shows on a span, as the conventions record errors: status ERROR with the message, `error.type`
 * (the error's `code`, else its class name), and an exception event.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/general/recording-errors/
 * @module
 */
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { GEN_AI } from "./attributes.js";

/** The `error.type` of an error: its `code` (the package's errors have one), else its name, else `_OTHER`. */
export function errorType(error: unknown): string {
  if (error && typeof error === "object") {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === "string" && name) return name;
  }
  return "_OTHER";
}

/**
 * Marks a span failed.
 * @param span - The span.
 * @param error - What it failed with.
 */
export function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute(GEN_AI.errorType, errorType(error));
  if (error instanceof Error) span.recordException(error);
}
