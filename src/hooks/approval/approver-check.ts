/**
 * Asking the agent's gates, before anything runs, whether a person who does not own a thread may
 * answer one of its open four-eyes questions: the edge refuses everyone else at the door, so an
 * ineligible answer never runs, never reaches the audit trail and never spends a round.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.js";
import { HookEvent } from "../../agent/events.js";
import type { JsonObject } from "../../agent/messages/messages.js";

/**
 * Dispatched by the edge handler (not by a run) for each open question a non-owner answers. A gate
 * whose rule asked the question sets {@link ApproverCheckEvent.verdict}; no verdict means no gate
 * claims the question, and the answer is refused (fail closed).
 *
 * @example
 * ```ts
 * agent.hooks.addCallback(ApproverCheckEvent, (e) => {
 *   if (e.question.tool === "transfer") e.verdict = e.principal === "bob" ? { ok: true } : { ok: false, why: "no" };
 * });
 * ```
 */
export class ApproverCheckEvent extends HookEvent {
  static override readonly eventType: string = "ApproverCheckEvent";
  /** Who answers (never the thread's owner). */
  readonly principal: string;
  /** The open question as it was asked (its `reason`: tool, input, subject, `approvals`). */
  readonly question: JsonObject;
  /** Set by the gate that asked: whether this person's answer would count, and if not, why. */
  verdict: { ok: true } | { ok: false; why: string } | undefined;

  /**
   * @param agent - The agent whose gates are asked.
   * @param principal - Who answers.
   * @param question - The stored question's reason.
   */
  constructor(agent: Agent, principal: string, question: JsonObject) {
    super(agent, {});
    this.principal = principal;
    this.question = question;
    this.verdict = undefined;
  }
}

/**
 * Asks the agent's gates whether `principal` may answer the question.
 * @param agent - The agent.
 * @param principal - Who answers.
 * @param question - The stored question's reason.
 * @returns `undefined` when the answer would count, else why not.
 */
export async function approverRefusal(
  agent: Agent,
  principal: string,
  question: JsonObject,
): Promise<string | undefined> {
  const event = await agent.hooks.invoke(new ApproverCheckEvent(agent, principal, question));
  const verdict = event.verdict;
  if (verdict === undefined) return "no gate of this agent asked this question";
  return verdict.ok ? undefined : verdict.why;
}
