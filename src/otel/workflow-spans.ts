/**
 * The orchestrators on the trace: `invoke_workflow {name}` per Graph or Swarm invocation and a `node {id}` span
 * per node execution, under which the node's own run (an agent with a tracing hook, or a nested orchestrator)
 * hangs its spans.
 *
 * @module
 */
import { SpanKind, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import {
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  type Orchestrator,
} from "../agent/events.js";
import type { HookRegistry } from "../agent/hooks.js";
import { runContext } from "../agent/run-context.js";
import { GEN_AI, KABOO } from "./attributes.js";
import { nodeSpansKey, parentOf, parentSpanKey, scoped, type ParentOption } from "./parents.js";
import { failed } from "./span-status.js";

/** One orchestrator invocation's spans. */
interface WorkflowTrace {
  span: Span;
  ctx: Context;
  /** The stream path its node runs get, without the node id (`<parent>.<name>`). */
  base: string;
  /** Node contexts by stream path: the state's `nodeSpansKey`, which node runs read from their copies. */
  paths: Map<string, Context>;
  /** Open node spans by node id. */
  nodes: Map<string, Span>;
  cleanups: (() => void)[];
}

/** The orchestrator half of `TracingHook` (registered by it on an orchestrator's registry). */
export class WorkflowSpans {
  readonly #tracer: Tracer;
  readonly #parent: ParentOption | undefined;
  readonly #runs = new WeakMap<Orchestrator, WorkflowTrace>();

  /**
   * @param tracer - The hook's tracer.
   * @param parent - The hook's `parent` option.
   */
  constructor(tracer: Tracer, parent: ParentOption | undefined) {
    this.#tracer = tracer;
    this.#parent = parent;
  }

  /** Subscribes to the orchestrator events (an agent's registry never dispatches them). */
  register(registry: HookRegistry): void {
    registry.addCallback(BeforeMultiAgentInvocationEvent, (e) => this.#begin(e));
    registry.addCallback(BeforeNodeCallEvent, (e) => this.#nodeStart(e));
    registry.addCallback(AfterNodeCallEvent, (e) => this.#nodeEnd(e));
    registry.addCallback(AfterMultiAgentInvocationEvent, (e) => this.#end(e));
  }

  #begin(e: BeforeMultiAgentInvocationEvent): void {
    const { agent: orchestrator, invocationState: state } = e;
    const parent = parentOf(state, this.#parent);
    const threadId = runContext.threadId.find(state);
    const span = this.#tracer.startSpan(
      `invoke_workflow ${orchestrator.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operation]: "invoke_workflow",
          [GEN_AI.agentName]: orchestrator.name,
          ...(orchestrator.type === undefined ? {} : { [KABOO.workflowType]: orchestrator.type }),
          ...(threadId === undefined ? {} : { [GEN_AI.conversationId]: threadId }),
        },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    const path = runContext.streamPath.find(state);
    const paths = new Map<string, Context>();
    this.#runs.set(orchestrator, {
      span,
      ctx,
      base: path ? `${path}.${orchestrator.name}` : orchestrator.name,
      paths,
      nodes: new Map(),
      cleanups: [scoped(nodeSpansKey, state, paths), scoped(parentSpanKey, state, ctx)],
    });
  }

  #nodeStart(e: BeforeNodeCallEvent): void {
    const run = this.#runs.get(e.agent);
    if (!run) return;
    const span = this.#tracer.startSpan(
      `node ${e.nodeId}`,
      { kind: SpanKind.INTERNAL, attributes: { [KABOO.nodeId]: e.nodeId } },
      run.ctx,
    );
    run.nodes.get(e.nodeId)?.end();
    run.nodes.set(e.nodeId, span);
    run.paths.set(`${run.base}.${e.nodeId}`, trace.setSpan(run.ctx, span));
  }

  #nodeEnd(e: AfterNodeCallEvent): void {
    const run = this.#runs.get(e.agent);
    const span = run?.nodes.get(e.nodeId);
    if (!run || !span) return;
    run.nodes.delete(e.nodeId);
    const status = (e.result as { status?: unknown } | undefined)?.status;
    if (typeof status === "string") span.setAttribute(KABOO.nodeStatus, status);
    if (e.error !== undefined) failed(span, e.error);
    span.end();
  }

  #end(e: AfterMultiAgentInvocationEvent): void {
    const run = this.#runs.get(e.agent);
    if (!run) return;
    this.#runs.delete(e.agent);
    for (const cleanup of run.cleanups) cleanup();
    // A node paused by a question before it ran, or cut off: its span ends with the workflow.
    for (const open of run.nodes.values()) open.end();
    const status = (e.result as { status?: unknown } | undefined)?.status;
    if (typeof status === "string") run.span.setAttribute(KABOO.workflowStatus, status);
    if (e.error !== undefined) failed(run.span, e.error);
    run.span.end();
  }
}
