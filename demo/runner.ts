/**
 * The runner agent of one conversation, with the demo's full hook stack, and the model the
 * settings chose (the scripted one by default).
 */
import { Agent, type Model } from "kaboo-workflows";
import {
  ContextHook,
  type ContextReport,
  EventPublisher,
  InterruptHook,
  MaxToolCallsGuard,
  StopGuard,
  type StreamEvent,
  ToolApprovalHook,
  ToolNameSanitizer,
} from "kaboo-workflows/hooks";
import { AnthropicModel } from "kaboo-workflows/models/anthropic";
import { OpenAIChatModel } from "kaboo-workflows/models/openai";
import { TOOL_LABELS, bankTools, cardService, person } from "./bank.js";
import { scriptedModel } from "./script.js";
import type { ModelSettings } from "./settings.js";

/** The agent's name: in interrupt names, events and the event log. */
export const AGENT_NAME = "bank";

const SYSTEM_PROMPT = [
  "You are the banking assistant of a small online bank. Be brief and friendly.",
  "Use get_balance and get_statement to look things up; transfer (euros, domestic), wire_abroad (IBAN, any of EUR/USD/GBP/CHF) and freeze_card to act.",
  "The person approves each action in a dialog. When a call is denied or expires, say so plainly and do not retry it.",
  "set_theme changes the look of this page (dark, light, ocean, forest, sunset).",
].join("\n");

/** What the page hears from each runner. */
export interface RunnerHooks {
  /** True while the person asked this conversation to stop. */
  stopRequested: (threadId: string) => boolean;
  onContext: (threadId: string, report: ContextReport) => void;
  onEvent: (event: StreamEvent) => void;
}

function modelFor(settings: ModelSettings, delayMs: number): Model {
  if (settings.provider === "openai") {
    return new OpenAIChatModel({
      model: settings.model,
      baseUrl: settings.baseUrl || "https://api.openai.com/v1",
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    });
  }
  if (settings.provider === "anthropic") {
    return new AnthropicModel({
      model: settings.model,
      maxTokens: 2048,
      dangerouslyAllowBrowser: true,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
  }
  return scriptedModel(delayMs);
}

function recipient(_tool: string, input: unknown): { key: string; label: string } {
  const to = String((input as { to?: unknown }).to ?? "")
    .trim()
    .toLowerCase();
  return { key: `to:${to}`, label: `transfers to ${person(to)}` };
}

function wireSubject(_tool: string, input: unknown): { key: string; label: string } {
  const w = input as { to?: unknown; iban?: unknown; amount?: unknown; currency?: unknown };
  return {
    key: `iban:${String(w.iban)}`,
    label: `a wire of ${String(w.amount)} ${String(w.currency)} to ${person(String(w.to))}`,
  };
}

/**
 * A fresh runner for one conversation.
 * @param threadId - The conversation.
 * @param settings - Which model.
 * @param hooks - Where the page listens.
 * @param wireTtlSeconds - Deadline of a wire approval. Default 30.
 * @param delayMs - The scripted model's pause between chunks. Default 12.
 */
export function createRunner(
  threadId: string,
  settings: ModelSettings,
  hooks: RunnerHooks,
  wireTtlSeconds = 30,
  delayMs = 12,
): Agent {
  return new Agent({
    name: AGENT_NAME,
    model: modelFor(settings, delayMs),
    systemPrompt: SYSTEM_PROMPT,
    tools: bankTools(),
    hooks: [
      new ToolNameSanitizer(),
      new StopGuard(() => hooks.stopRequested(threadId)),
      new MaxToolCallsGuard({ maxCalls: 8 }),
      // Transfers: a yes can be remembered, but only for that recipient.
      new InterruptHook([{ pattern: "transfer", remember: "always", subject: recipient }], { agentName: AGENT_NAME }),
      // Wires: each one asked for, with a deadline.
      new InterruptHook([{ pattern: "wire_abroad", subject: wireSubject }], {
        agentName: AGENT_NAME,
        ttlSeconds: wireTtlSeconds,
        remember: "once",
      }),
      new ToolApprovalHook({ agentName: AGENT_NAME, onDecision: (d) => cardService.onDecision(d) }),
      new ContextHook({ clearTrigger: 1200, keepLast: 1, minChars: 600, onReport: (r) => hooks.onContext(threadId, r) }),
      new EventPublisher(hooks.onEvent, AGENT_NAME, { toolLabels: TOOL_LABELS }),
    ],
  });
}
