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
import { TOOL_LABELS, bankTools, cardService, person } from "./bank.js";
import { formatMoney } from "./money.js";
import { scriptedModel } from "./scripted.js";
import type { ModelSettings } from "./settings.js";

/** The agent's name: in interrupt names, events and the event log. */
export const AGENT_NAME = "bank";

const SYSTEM_PROMPT = [
  "You are the banking assistant of a small online bank. Be brief and friendly.",
  "Use get_balance and get_statement to look things up; transfer (to a person), move_money (between the person's checking and savings), wire_abroad (IBAN, any of EUR/USD/GBP/CHF) and freeze_card to act.",
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

/** Model calls of the scripted model still to fail (`?fail=N`), shared by every runner of the page. */
const outage = { failures: 0 };

/**
 * Makes the models the settings choose. The providers' code is loaded only when one is chosen, so
 * the page people usually see (the scripted model) does not download it.
 * @param settings - Which model.
 * @param delayMs - The scripted model's pause between chunks.
 * @param failures - Scripted model calls to fail first (to try Retry). Default 0.
 * @returns A function that makes one model per runner.
 */
export async function modelMaker(settings: ModelSettings, delayMs: number, failures = 0): Promise<() => Model> {
  if (settings.provider === "openai") {
    const { OpenAIChatModel } = await import("kaboo-workflows/models/openai");
    return () =>
      new OpenAIChatModel({
        model: settings.model,
        baseUrl: settings.baseUrl || "https://api.openai.com/v1",
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
  }
  if (settings.provider === "anthropic") {
    const { AnthropicModel } = await import("kaboo-workflows/models/anthropic");
    return () =>
      new AnthropicModel({
        model: settings.model,
        maxTokens: 2048,
        dangerouslyAllowBrowser: true,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      });
  }
  outage.failures = failures;
  return () => scriptedModel(delayMs, outage);
}

function accountMove(_tool: string, input: unknown): { key: string; label: string } {
  const to = String((input as { to?: unknown }).to ?? "");
  return { key: `account:${to}`, label: `moves to your ${to} account` };
}

function recipient(_tool: string, input: unknown): { key: string; label: string } {
  const to = String((input as { to?: unknown }).to ?? "")
    .trim()
    .toLowerCase();
  return { key: `to:${to}`, label: `transfers to ${person(to)}` };
}

/** The subject of each gate with remembered answers: what a grant for the call covers. */
export const GATE_SUBJECTS: Partial<Record<string, (tool: string, input: unknown) => { key: string; label: string }>> = {
  transfer: recipient,
  move_money: accountMove,
};

function wireSubject(_tool: string, input: unknown): { key: string; label: string } {
  const w = input as { to?: unknown; iban?: unknown; amount?: unknown; currency?: unknown };
  return {
    key: `iban:${String(w.iban)}`,
    label: `a wire of ${formatMoney(Number(w.amount), String(w.currency))} to ${person(String(w.to))}`,
  };
}

/**
 * A fresh runner for one conversation.
 * @param threadId - The conversation.
 * @param model - Makes the model (see {@link modelMaker}).
 * @param hooks - Where the page listens.
 * @param wireTtlSeconds - Deadline of a wire approval. Default 30.
 */
export function createRunner(threadId: string, model: () => Model, hooks: RunnerHooks, wireTtlSeconds = 30): Agent {
  return new Agent({
    name: AGENT_NAME,
    model: model(),
    systemPrompt: SYSTEM_PROMPT,
    tools: bankTools(),
    hooks: [
      new ToolNameSanitizer(),
      new StopGuard(() => hooks.stopRequested(threadId)),
      new MaxToolCallsGuard({ maxCalls: 8 }),
      // Transfers and moves: a yes can be remembered, but only for that recipient or account.
      new InterruptHook(
        [
          { pattern: "transfer", remember: "always", subject: recipient },
          { pattern: "move_money", remember: "always", subject: accountMove },
        ],
        { agentName: AGENT_NAME },
      ),
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
