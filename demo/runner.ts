/**
 * The runner agent of one conversation, with the demo's full hook stack. Loaded with the first run,
 * not with the page (the agent loop, the hooks and the bank's tools wait until someone asks).
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
import { TOOL_LABELS } from "./bank.js";
import { bankTools, cardService } from "./bank-tools.js";
import { wireGates } from "./four-eyes-gate.js";
import { accountMove, recipient, wireSubject } from "./subjects.js";
import { tracingHook } from "./tracing.js";

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
      // First, so its spans see what the gates and the ledger decided (the Trace view draws them).
      tracingHook(),
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
      // Wires: each one asked for, with a deadline; one over 10,000 asks a second person.
      ...wireGates(AGENT_NAME, wireSubject, wireTtlSeconds),
      new ToolApprovalHook({ agentName: AGENT_NAME, onDecision: (d) => cardService.onDecision(d) }),
      new ContextHook({
        clearTrigger: 1200,
        keepLast: 1,
        minChars: 600,
        onReport: (r) => hooks.onContext(threadId, r),
      }),
      new EventPublisher(hooks.onEvent, AGENT_NAME, { toolLabels: TOOL_LABELS }),
    ],
  });
}
