/**
 * The gate's path for a rule with `approvals` (four eyes): no grant covers such a call and only
 * `once` is offered; each round's answer is read by the shared decision step, judged against the
 * quorum, recorded in the audit trail with its principal, and either runs the call (quorum met),
 * asks the next round, or refuses it.
 *
 * @module
 */
// Loaded on demand with the gate (gate.ts imports it, and re-exports checkApprover for InterruptHook);
// it imports the helpers it shares with the gate plainly.
import type { BeforeToolCallEvent } from "../../agent/events.js";
import { toolHookInterruptId } from "../../agent/interrupts/interrupt-id.js";
import type { JsonObject, JsonValue } from "../../agent/messages/messages.js";
import { auditDecision, auditRequest } from "./audit.js";
import { decideAnswer, requestDeadline, type DecisionRecord } from "./decision.js";
import type { ApproverCheckEvent } from "./approver-check.js";
import { ineligible, judgeAnswer, latestRound, readQuorum, type ApprovalQuorum, type QuorumState } from "./quorum.js";
import type { ApprovalRequest } from "./request.js";
import type { CallSubject } from "./subject.js";

/** Answers not counted (ineligible, repeated) that a question takes before it is refused. */
const MAX_IGNORED = 32;

/** What the quorum path needs from the gate. */
export interface QuorumGate {
  agentName: string;
  /** The rule's pattern, for the audit trail. */
  pattern: string;
  /** The question's interrupt name (round 0). */
  name: string;
  quorum: ApprovalQuorum;
  ttlSeconds: number | undefined;
  now: () => number;
  /** The gate's approval path: fingerprint, audit, decision recorded; the call then runs. */
  approve(record: DecisionRecord): Promise<void>;
  /** The gate's refusal path: audit, cancel with a note, decision recorded. */
  refuse(record: DecisionRecord): Promise<void>;
  /** The run's principal (`null` when none), and whose run asked (an approver's run asks for another's). */
  principal: string | null;
  requestedBy: string | null;
}

/**
 * Gates one call under a quorum rule.
 * @param event - The call (its input already validated as `input`).
 * @param input - The validated arguments.
 * @param subject - The call's subject.
 * @param g - See {@link QuorumGate}.
 */
export async function gateQuorum(
  event: BeforeToolCallEvent,
  input: unknown,
  subject: CallSubject,
  g: QuorumGate,
): Promise<void> {
  const { toolUse } = event;
  const limit = g.quorum.required + MAX_IGNORED;
  const latest = latestRound(event.agent.interruptState, toolUse.toolUseId, g.name, limit, toolHookInterruptId);
  const { principal, requestedBy } = g;
  const state: QuorumState = latest.state ?? { required: g.quorum.required, approvedBy: [], requestedBy };
  const expiresAt = latest.expiresAt ?? requestDeadline({ ttlSeconds: g.ttlSeconds, now: g.now() });
  const ask = (round: number, approvals: QuorumState) =>
    askRound(
      event,
      g,
      { input, subject, expiresAt, approvals },
      round === latest.round ? latest.name : `${g.name}:quorum:${round}`,
    );
  if (latest.stored?.response === undefined) return ask(latest.round, state);
  const asked = (latest.stored.reason ?? {}) as Partial<ApprovalRequest>;
  if ((asked.subject?.key ?? null) !== subject.key) {
    event.cancel = `The approval for "${toolUse.name}" does not match the call; it did not run.`;
    return;
  }
  const record = decideAnswer({
    interruptId: toolHookInterruptId(toolUse.toolUseId, latest.name),
    response: latest.stored.response,
    // The first round's deadline holds for every round: the whole request expires.
    asked: { ...asked, expiresAt },
    offered: ["once"],
    now: g.now(),
    deadlineRequired: g.ttlSeconds !== undefined,
    principal,
  });
  const step = judgeAnswer(g.quorum, state, { ...record, edits: record.editedArgs !== undefined }, g.now());
  const read = { interruptId: record.interruptId, principal: record.principal };
  switch (step.kind) {
    case "met":
      return g.approve(record);
    case "refused":
      return g.refuse(record);
    case "more":
      await auditDecision(event, { ...read, decision: "approved", scope: "once", note: progress(step.state) });
      return ask(latest.round + 1, step.state);
    case "ignored":
      await auditDecision(event, { ...read, decision: "refused", note: `not counted: ${step.note}` });
      if (latest.round + 1 >= g.quorum.required + MAX_IGNORED) {
        // Nobody said no: the request closes unanswered (as an expired one), and the model is told so.
        await g.refuse({ ...record, decision: "expired" });
        event.cancel = `The approval request for "${toolUse.name}" was closed after ${MAX_IGNORED} answers that did not count; the call did not run. Ask the person before trying again.`;
        return;
      }
      return ask(latest.round + 1, step.state);
    default: {
      const never: never = step;
      throw new Error(`unknown quorum step ${JSON.stringify(never)}`);
    }
  }
}

/** One round's question: what it shows. */
interface Round {
  input: unknown;
  subject: CallSubject;
  expiresAt: string | undefined;
  approvals: QuorumState;
}

/** Asks one round of a quorum question (named `name`), recorded in the trail the first time it is shown. */
async function askRound(event: BeforeToolCallEvent, g: QuorumGate, r: Round, name: string): Promise<void> {
  const { toolUse } = event;
  const { approvals, expiresAt } = r;
  const request: ApprovalRequest = {
    kind: "tool_approval",
    agent: g.agentName,
    tool: toolUse.name,
    toolUseId: toolUse.toolUseId,
    input: r.input as JsonValue,
    subject: r.subject.key === null ? null : { key: r.subject.key, label: r.subject.label },
    scopes: ["once"],
    message: `Allow ${r.subject.label}? (${approvals.approvedBy.length} of ${approvals.required} approvals)`,
    approvals,
  };
  if (expiresAt !== undefined) request.expiresAt = expiresAt;
  const interruptId = toolHookInterruptId(toolUse.toolUseId, name);
  if (!event.agent.interruptState.interrupts.has(interruptId)) {
    const shown = { interruptId, rule: g.pattern, input: r.input, subject: request.subject, expiresAt };
    const { required, requestedBy } = approvals;
    await auditRequest(event, { ...shown, required, requestedBy });
  }
  event.interrupt({ name, reason: request as unknown as JsonObject });
}

function progress(state: QuorumState): string {
  return `${state.approvedBy.length} of ${state.required} approvals`;
}

/**
 * Answers an {@link ApproverCheckEvent} for a gate's question: whether the person's approval
 * would count under the rule's quorum. Leaves the event alone when the question is not a quorum
 * question of this gate.
 * @param event - The check.
 * @param agentName - The gate's agent name (the question's `agent`).
 * @param quorum - The quorum of the gate's rule covering the question's tool.
 */
export function checkApprover(event: ApproverCheckEvent, agentName: string, quorum: ApprovalQuorum): void {
  const q = event.question;
  const state = readQuorum(q);
  if (q.kind !== "tool_approval" || q.agent !== agentName || !state) return;
  const why = ineligible(quorum, state, event.principal);
  event.verdict = why === undefined ? { ok: true } : { ok: false, why };
}
