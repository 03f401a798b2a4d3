/**
 * A model call's `chat {model}` span: kind CLIENT, the model, the tokens of every attempt summed, the finish
 * reason, and with content capture the transcript, system prompt and answer. A retried call is one span, as the
 * conventions count a retried operation once.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#inference
 * @module
 */
import { SpanKind, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { Agent } from "../agent/agent.js";
import type { AfterModelCallEvent } from "../agent/events.js";
import { GEN_AI } from "./attributes.js";
import { FINISH_REASONS, inputMessages, outputMessages, systemInstructions } from "./content.js";
import { errorType, failed } from "./span-status.js";

/** How a hook starts its chat spans (made once per hook, shared by its model calls). */
export interface ChatSpanOptions {
  tracer: Tracer;
  /** `gen_ai.provider.name`, when known. */
  provider: string | undefined;
  /** Whether to record the transcript, the system prompt and the answer. */
  content: boolean;
}

/** One model call's span, across its attempts. */
export class ChatSpan {
  readonly #span: Span;
  readonly #content: boolean;
  #input = 0;
  #output = 0;

  /**
   * @param o - See {@link ChatSpanOptions}.
   * @param parent - The run's context (its `invoke_agent` span).
   * @param agent - The running agent.
   */
  constructor(o: ChatSpanOptions, parent: Context, agent: Agent) {
    const model = agent.model.modelId;
    this.#content = o.content;
    // Filled in place (no spread temporaries): one per model call of every traced run.
    const attributes: Attributes = { [GEN_AI.operation]: "chat", [GEN_AI.requestModel]: model };
    if (o.provider !== undefined) attributes[GEN_AI.provider] = o.provider;
    this.#span = o.tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, parent);
    if (o.content) {
      this.#span.setAttribute(GEN_AI.inputMessages, inputMessages(agent.messages));
      const prompt = agent.systemPrompt;
      if (prompt !== undefined) this.#span.setAttribute(GEN_AI.systemInstructions, systemInstructions(prompt));
    }
  }

  /**
   * Records an attempt's outcome.
   * @param e - The attempt's AfterModelCall event, as the hooks left it.
   * @returns Whether the call is over (the span ended); `false` while a hook asked for a retry.
   */
  after(e: AfterModelCallEvent): boolean {
    const span = this.#span;
    // One setAttributes per attempt (the SDK validates each call's attributes): tokens, and when it ended, why.
    const attrs: Attributes = {};
    if (e.usage) {
      this.#input += e.usage.inputTokens;
      this.#output += e.usage.outputTokens;
      attrs[GEN_AI.inputTokens] = this.#input;
      attrs[GEN_AI.outputTokens] = this.#output;
    }
    const response = e.retry ? undefined : e.stopResponse;
    if (response) {
      attrs[GEN_AI.finishReasons] = [FINISH_REASONS[response.stopReason]];
      if (this.#content) attrs[GEN_AI.outputMessages] = outputMessages(response.message, response.stopReason);
    }
    span.setAttributes(attrs);
    if (e.retry) {
      if (e.error !== undefined) span.addEvent("retry", { [GEN_AI.errorType]: errorType(e.error), attempt: e.attempt });
      return false;
    }
    if (e.error !== undefined) failed(span, e.error);
    span.end();
    return true;
  }

  /**
   * Ends the span of a call the run left without an answer (cancelled or failed mid-stream).
   * @param error - What the run failed with, if it did.
   */
  abandon(error: unknown): void {
    failed(this.#span, error ?? new Error("the run ended during the model call"));
    this.#span.end();
  }
}
