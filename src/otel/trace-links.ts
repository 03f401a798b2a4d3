/**
 * Trace context across a pause and at the edge: the W3C `traceparent` form of a span context, read from a
 * request header (a run's parent) and kept in the paused session (the run that resumes an approval links to
 * the span that asked).
 *
 * @module
 */
import { ROOT_CONTEXT, trace, type Context, type Link, type SpanContext } from "@opentelemetry/api";
import type { Agent } from "../agent/agent.js";
import { interruptCallId } from "../agent/interrupts/interrupt-id.js";

// W3C Trace Context, version 00: lowercase hex, ids not all zero (https://www.w3.org/TR/trace-context/#traceparent-header).
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * The key, in the paused run's interrupt-state `context`, of the spans that asked: `{ [interruptId]: traceparent }`.
 * The context travels with the paused session (`interrupt_state`), so a cold agent that resumes it, in another
 * request or another tab, still finds them. It comes back from a client: each value is checked, and a bad one is
 * dropped (a link is only a reference; it decides nothing).
 */
export const TRACE_LINKS_KEY = "kaboo_trace_links";
const MAX_LINKS = 64;

/**
 * Reads a W3C `traceparent` header value into a span context.
 * @param header - The header's value (untrusted).
 * @returns The remote span context, or `undefined` when the value is missing or malformed.
 */
export function spanContextFromTraceparent(header: string | null | undefined): SpanContext | undefined {
  const m = typeof header === "string" ? TRACEPARENT.exec(header.trim()) : null;
  if (!m) return undefined;
  const [, traceId, spanId, flags] = m as unknown as [string, string, string, string];
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 1, isRemote: true };
}

/**
 * A parent context for a run from an incoming W3C `traceparent` header: pass it as the tracing hook's `parent`
 * so the run's spans are the request's children.
 * @param header - The header's value (untrusted).
 * @returns A context holding the remote span, or `undefined` when the value is missing or malformed.
 * @example
 * ```ts
 * const parent = parentFromTraceparent(request.headers.get("traceparent"));
 * const hook = new TracingHook({ tracer, parent });
 * ```
 */
export function parentFromTraceparent(header: string | null | undefined): Context | undefined {
  const sc = spanContextFromTraceparent(header);
  return sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : undefined;
}

/** The W3C `traceparent` of a span context. */
export function traceparentOf(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? "01" : "00"}`;
}

/**
 * Keeps, in the paused run's interrupt state, the span that asked each open question.
 * @param agent - The paused agent.
 * @param asked - Interrupt id → the asking span's context.
 */
export function keepAskingSpans(agent: Agent, asked: ReadonlyMap<string, SpanContext>): void {
  if (asked.size === 0) return;
  const out: Record<string, string> = {};
  let n = 0;
  for (const [id, sc] of asked) {
    if (n++ >= MAX_LINKS) break;
    out[id] = traceparentOf(sc);
  }
  agent.interruptState.context[TRACE_LINKS_KEY] = out;
}

/** The spans that asked the questions a resumed run answers, as links, each with the call it was about. */
export interface AskingSpans {
  /** Every asking span (for the resumed run's `invoke_agent` span). */
  all: Link[];
  /** By call id (for the call's `execute_tool` span). */
  byCall: Map<string, Link[]>;
}

/**
 * Reads what {@link keepAskingSpans} kept, checking every value (the context may come from a client).
 * @param agent - The resuming agent.
 * @returns The links, or `undefined` when the paused run kept none.
 */
export function askingSpans(agent: Agent): AskingSpans | undefined {
  const kept = agent.interruptState.context[TRACE_LINKS_KEY];
  if (!kept || typeof kept !== "object" || Array.isArray(kept)) return undefined;
  const out: AskingSpans = { all: [], byCall: new Map() };
  let seen = 0;
  // Walked, not listed: a client's copy may hold any number of keys, and only the first few are read.
  for (const id in kept) {
    if (!Object.hasOwn(kept, id)) continue;
    if (seen++ >= MAX_LINKS) break;
    const value = kept[id];
    const sc = spanContextFromTraceparent(typeof value === "string" ? value : undefined);
    if (!sc) continue;
    const link: Link = { context: sc, attributes: { "kaboo.approval.interrupt_id": id } };
    out.all.push(link);
    const call = interruptCallId(id);
    if (call !== undefined) out.byCall.set(call, [...(out.byCall.get(call) ?? []), link]);
  }
  return out.all.length ? out : undefined;
}
