/**
 * Where a run's first span hangs: under the node span of the orchestrator that runs it, under the `execute_tool`
 * span of the call that delegated to it (`agentAsTool`), under the span of the run whose state it was copied from,
 * under the request's trace (`acceptTraceparent`), under the hook's `parent` option, or the active context.
 * Each is found through the run's `invocationState` (child runs get shallow copies of their parent's), never
 * through an ambient context store, which Workers and pages do not have per run.
 *
 * @module
 */
import { context, trace, type Context, type Span } from "@opentelemetry/api";
import type { InvocationState } from "../agent/events.js";
import { privateRunKey, runContext, type RunKey } from "../agent/run-context.js";
import { parentFromTraceparent } from "./trace-links.js";

/** What a hook is told about a run's parent: a context, or a function of the run's state. */
export type ParentOption = Context | ((invocationState: InvocationState) => Context | undefined);

const isContext = (v: unknown): v is Context =>
  typeof v === "object" && v !== null && typeof (v as Context).getValue === "function";
const isMap = (v: unknown): v is Map<string, Context> => v instanceof Map;
const isSpanMap = (v: unknown): v is Map<string, Span> => v instanceof Map;

/** The span of the run (or orchestrator) whose state a child run's state was copied from. */
export const parentSpanKey = privateRunKey("traceParent", isContext);
/** The parent a host took from the request (`acceptTraceparent`). */
const requestParentKey = privateRunKey("traceRequestParent", isContext);
/** An orchestrator's node spans, by the stream path its node runs get (without the `#N` of a repeat). */
export const nodeSpansKey = privateRunKey("traceNodes", isMap);
/** A run's open `execute_tool` spans by call id: a delegate's run (its state has `delegationId`) hangs under its call. */
export const callSpansKey = privateRunKey("traceCalls", isSpanMap);

/**
 * The parent context of a run's (or an orchestrator's) first span.
 * @param state - The run's state.
 * @param option - The hook's `parent` option.
 * @returns The context to start the span in.
 */
export function parentOf(state: InvocationState, option: ParentOption | undefined): Context {
  const nodes = nodeSpansKey.find(state);
  const path = runContext.streamPath.find(state);
  const node = nodes && path !== undefined ? nodes.get(path.replace(/#\d+$/, "")) : undefined;
  if (node) return node;
  const parent = parentSpanKey.find(state);
  const delegation = runContext.delegationId.find(state);
  const call = delegation === undefined ? undefined : callSpansKey.find(state)?.get(delegation);
  if (call) return trace.setSpan(parent ?? context.active(), call);
  if (parent) return parent;
  const request = requestParentKey.find(state);
  if (request) return request;
  const given = typeof option === "function" ? option(state) : option;
  return given ?? context.active();
}

/**
 * Makes `value` the state's value under `key` for the length of a run, and returns how to put back the one before.
 * @returns A function that restores the previous value (or removes the key).
 */
export function scoped<T>(key: RunKey<T>, state: InvocationState, value: T): () => void {
  const had = key.raw(state);
  key.set(state, value);
  return function restore() {
    if (had === undefined) key.delete(state);
    else key.set(state, had as T);
  };
}

/**
 * Makes the caller's trace the parent of a run's spans: at the edge, the request's W3C `traceparent` header
 * (untrusted: a malformed one is ignored and the run starts its own trace). Call it in the handler's
 * `prepare`, or wherever the host builds the run's `invocationState`.
 * @param invocationState - The run's state.
 * @param traceparent - The header's value.
 * @returns Whether the header was well formed (and is now the run's parent).
 * @example
 * ```ts
 * createAguiHandler({ agent, prepare: (state, request) => acceptTraceparent(state, request.headers.get("traceparent")) });
 * ```
 */
export function acceptTraceparent(invocationState: InvocationState, traceparent: string | null | undefined): boolean {
  const parent = parentFromTraceparent(traceparent);
  if (parent) requestParentKey.set(invocationState, parent);
  return parent !== undefined;
}
