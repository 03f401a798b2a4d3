/**
 * TracingHook: a run as OpenTelemetry spans an operator's tracing backend can open, following the GenAI
 * semantic conventions, with approvals and ledger answers on the tool spans.
 *
 * @module
 */
import {
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import type { Agent } from "../agent/agent.js";
import { traceRunAudit, watchRunAudit } from "../agent/audit/audit-record.js";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
} from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { interruptCallId } from "../agent/interrupts/interrupt-id.js";
import type { AgentResult } from "../agent/result.js";
import { runContext } from "../agent/run-context.js";
import { openQuestionOnSpan, recordOnSpan, type PrincipalMode } from "./approval-spans.js";
import { GEN_AI, KABOO } from "./attributes.js";
import { ChatSpan, type ChatSpanOptions } from "./chat-spans.js";
import { jsonText, resultContent } from "./content.js";
import { callSpansKey, parentOf, parentSpanKey, scoped, type ParentOption } from "./parents.js";
import { askingSpans, keepAskingSpans, type AskingSpans } from "./trace-links.js";
import { failed } from "./span-status.js";
import { WorkflowSpans } from "./workflow-spans.js";

/** Options of {@link TracingHook}. */
export interface TracingHookOptions {
  /** The tracer to start spans with. Default `trace.getTracer("kaboo-workflows")` (the global provider's). */
  tracer?: Tracer | undefined;
  /**
   * The parent of a run's first span when no orchestrator or delegating run is its parent: a context (an
   * incoming `traceparent`, see `parentFromTraceparent`) or a function of the run's `invocationState`.
   * Default: the active context.
   */
  parent?: ParentOption | undefined;
  /**
   * Record prompts, the model's answers, tool arguments and results on the spans (the conventions'
   * `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`). Media bytes are never recorded. Default `false`: the conventions say content
   * is opt-in, as it holds what people typed and what tools returned.
   */
  captureContent?: boolean | undefined;
  /** How the person who answered appears: `plain` (the host's principal), `sha256` (its hex hash) or `omit`. Default `plain`. */
  principals?: PrincipalMode | undefined;
  /** `gen_ai.provider.name` on model-call spans (`openai`, `anthropic`, …). Default: not set. */
  providerName?: string | undefined;
}

/** The call spans of a run that does not record: never written to. */
const NO_SPANS: Map<string, Span> = new Map();

/** One agent invocation's spans. */
interface RunTrace {
  span: Span;
  ctx: Context;
  recording: boolean;
  resuming: boolean;
  chat: ChatSpan | undefined;
  tools: Map<string, Span>;
  /** The spans that asked what this run answers: `null` once looked for and none found. */
  asking: AskingSpans | null | undefined;
  cleanups: (() => void)[];
}

/**
 * Turns runs into OpenTelemetry spans: `invoke_agent {agent}` per invocation, `chat {model}` per model call
 * (token usage, finish reasons), `execute_tool {tool}` per call, and for Graph and Swarm `invoke_workflow
 * {name}` with a `node {id}` span per node execution. Every call a gate covers gets its `execute_tool` span
 * even when it never runs, with `kaboo.approval.*` attributes (asked, approved, denied, expired, granted,
 * four-eyes progress, scope, subject, who answered) and the ledger's answer (`kaboo.ledger.answer`: ran,
 * replayed, outcome_unknown); see the README's "Tracing" for the table. The run that resumes a question links
 * to the span that asked it (kept in the paused session's interrupt state).
 *
 * Register it first among the agent's hooks: its `After*` callbacks then run last and see what the other
 * hooks decided (a retry, a replaced result). Spans are parented explicitly (no ambient context store is
 * needed, so it works in Workers and pages); a run's span is the child of the node or delegating run that
 * started it, else of `parent`.
 *
 * A run whose `invoke_agent` span does not record (no SDK registered, a no-op tracer, or not sampled) gets
 * that span only: nothing is started for its model and tool calls (the SDK's default samplers would drop them
 * with their parent), so an untraced run pays a few lookups per event.
 *
 * @param options - See {@link TracingHookOptions}.
 * @example
 * ```ts
 * const tracer = provider.getTracer("my-app");
 * const agent = new Agent({ model, tools, hooks: [new TracingHook({ tracer }), gate] });
 * ```
 */
export class TracingHook implements HookProvider {
  readonly #tracer: Tracer;
  readonly #parent: ParentOption | undefined;
  readonly #content: boolean;
  readonly #principals: PrincipalMode;
  readonly #provider: string | undefined;
  readonly #chat: ChatSpanOptions;
  readonly #runs = new WeakMap<Agent, RunTrace>();
  readonly #workflows: WorkflowSpans;

  constructor(options: TracingHookOptions = {}) {
    this.#tracer = options.tracer ?? trace.getTracer("kaboo-workflows");
    this.#parent = options.parent;
    this.#content = options.captureContent ?? false;
    this.#principals = options.principals ?? "plain";
    this.#provider = options.providerName;
    this.#chat = { tracer: this.#tracer, provider: this.#provider, content: this.#content };
    this.#workflows = new WorkflowSpans(this.#tracer, this.#parent);
  }

  /** Subscribes to the run's events, and to an orchestrator's when given to a Graph or Swarm. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (e) => this.#begin(e));
    registry.addCallback(BeforeModelCallEvent, (e) => this.#modelStart(e));
    registry.addCallback(AfterModelCallEvent, (e) => this.#modelEnd(e));
    registry.addCallback(BeforeToolCallEvent, (e) => this.#toolStart(e));
    registry.addCallback(AfterToolCallEvent, (e) => this.#toolEnd(e));
    registry.addCallback(AfterInvocationEvent, (e) => this.#end(e));
    this.#workflows.register(registry);
  }

  #begin(e: BeforeInvocationEvent): void {
    const { agent, invocationState: state } = e;
    const parent = parentOf(state, this.#parent);
    const threadId = runContext.threadId.find(state);
    const runId = runContext.runId.find(state);
    // Filled in place (no spread temporaries): this runs once per run, traced or not.
    const attributes: Attributes = {
      [GEN_AI.operation]: "invoke_agent",
      [GEN_AI.agentName]: agent.name,
      [GEN_AI.requestModel]: agent.model.modelId,
      [KABOO.resuming]: e.resuming,
    };
    if (threadId !== undefined) attributes[GEN_AI.conversationId] = threadId;
    if (runId !== undefined) attributes[KABOO.runId] = runId;
    if (this.#provider !== undefined) attributes[GEN_AI.provider] = this.#provider;
    const name = agent.name ? `invoke_agent ${agent.name}` : "invoke_agent";
    const span = this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    const ctx = trace.setSpan(parent, span);
    const recording = span.isRecording();
    const run: RunTrace = {
      span,
      ctx,
      recording,
      resuming: e.resuming,
      chat: undefined,
      // A run that does not record never starts a call's span: it shares one empty map.
      tools: recording ? new Map() : NO_SPANS,
      asking: undefined,
      cleanups: [],
    };
    run.cleanups.push(scoped(parentSpanKey, state, ctx));
    this.#runs.set(agent, run);
    if (!run.recording) return;
    run.cleanups.push(
      scoped(callSpansKey, state, run.tools),
      // The entry names the call's span (its ids, hashed with it), and the span the entry (kaboo.approval.audit_seq).
      traceRunAudit(state, (record, who) => {
        if (who !== agent) return undefined;
        const ids = this.#toolSpan(run, record.toolUseId, record.tool).spanContext();
        return isSpanContextValid(ids) ? { traceId: ids.traceId, spanId: ids.spanId } : undefined;
      }),
      watchRunAudit(state, (record, entry, who) => {
        if (who !== agent || record.kind === "revocation") return;
        recordOnSpan(this.#toolSpan(run, record.toolUseId, record.tool), record, entry, this.#principals);
      }),
    );
    if (e.resuming) this.#loadAsking(run, agent, false);
  }

  /**
   * Links the resumed run to the spans that asked. Tried when the run begins and again at its first call: a
   * `SessionStateHook` registered after this hook restores the paused session between the two.
   * @param last - Whether to stop looking when none is found.
   */
  #loadAsking(run: RunTrace, agent: Agent, last: boolean): void {
    if (run.asking !== undefined) return;
    const asking = askingSpans(agent);
    if (asking) run.span.addLinks(asking.all);
    if (asking || last) run.asking = asking ?? null;
  }

  #modelStart(e: BeforeModelCallEvent): void {
    const run = this.#runs.get(e.agent);
    // Open already: a retry of the same call.
    if (!run?.recording || run.chat) return;
    run.chat = new ChatSpan(this.#chat, run.ctx, e.agent);
  }

  #modelEnd(e: AfterModelCallEvent): void {
    const run = this.#runs.get(e.agent);
    if (run?.chat?.after(e)) run.chat = undefined;
  }

  /** The call's span, started when first needed (its BeforeToolCall, or a gate's record before it). */
  #toolSpan(run: RunTrace, toolUseId: string, tool: string): Span {
    let span = run.tools.get(toolUseId);
    if (span) return span;
    const options: SpanOptions = {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.operation]: "execute_tool",
        [GEN_AI.toolName]: tool,
        [GEN_AI.toolCallId]: toolUseId,
        [GEN_AI.toolType]: "function",
      },
    };
    const links = run.asking?.byCall.get(toolUseId);
    if (links) options.links = links;
    span = this.#tracer.startSpan(`execute_tool ${tool}`, options, run.ctx);
    run.tools.set(toolUseId, span);
    return span;
  }

  #toolStart(e: BeforeToolCallEvent): void {
    const run = this.#runs.get(e.agent);
    if (!run?.recording) return;
    if (run.resuming) this.#loadAsking(run, e.agent, true);
    const span = this.#toolSpan(run, e.toolUse.toolUseId, e.toolUse.name);
    if (this.#content) span.setAttribute(GEN_AI.toolArguments, jsonText(e.toolUse.input));
  }

  #toolEnd(e: AfterToolCallEvent): void {
    const run = this.#runs.get(e.agent);
    if (!run?.recording || e.retry) return;
    const span = this.#toolSpan(run, e.toolUse.toolUseId, e.toolUse.name);
    run.tools.delete(e.toolUse.toolUseId);
    if (e.cancelMessage !== undefined) span.setAttribute(KABOO.cancelled, true);
    else if (e.error !== undefined) failed(span, e.error);
    else if (e.result.status === "error") {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute(GEN_AI.errorType, "tool_error");
    }
    if (this.#content) span.setAttribute(GEN_AI.toolResult, jsonText(resultContent(e.result.content)));
    span.end();
  }

  #end(e: AfterInvocationEvent): void {
    const run = this.#runs.get(e.agent);
    if (!run) return;
    this.#runs.delete(e.agent);
    for (const cleanup of run.cleanups) cleanup();
    const { span } = run;
    // Not sampled, or no SDK: nothing below it is either (the SDK's samplers follow the parent by default).
    if (!run.recording) {
      span.end();
      return;
    }
    const result = e.result;
    // Most runs end with no question open: nothing to keep, and no map made for it.
    if (result?.interrupts.length) this.#keepQuestions(run, e.agent, result.interrupts);
    run.chat?.abandon(e.error);
    // Calls still open: paused on a question, or cut off when the run failed or stopped.
    for (const open of run.tools.values()) open.end();
    if (result) {
      const usage = result.metrics.usage;
      span.setAttributes({
        [KABOO.stopReason]: result.stopReason,
        [KABOO.interrupts]: result.interrupts.length,
        [GEN_AI.inputTokens]: usage.inputTokens,
        [GEN_AI.outputTokens]: usage.outputTokens,
      });
    }
    if (e.error !== undefined) failed(span, e.error);
    span.end();
  }

  /** Puts the run's open questions on their calls' spans, and keeps the spans that asked for the run that resumes. */
  #keepQuestions(run: RunTrace, agent: Agent, questions: AgentResult["interrupts"]): void {
    const asked = new Map<string, SpanContext>();
    for (const question of questions) {
      const call = interruptCallId(question.id);
      if (call === undefined) {
        asked.set(question.id, run.span.spanContext());
        continue;
      }
      const reason = question.reason;
      const tool = reason && typeof reason === "object" && !Array.isArray(reason) ? reason.tool : undefined;
      const callSpan = this.#toolSpan(run, call, typeof tool === "string" ? tool : "unknown");
      openQuestionOnSpan(callSpan, question.id, reason);
      asked.set(question.id, callSpan.spanContext());
    }
    keepAskingSpans(agent, asked);
  }
}
