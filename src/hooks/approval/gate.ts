/**
 * The approval gate's work on a call a rule covers: a remembered grant, the question, the answer
 * (approved, edited, denied, expired, unreadable) and its record. `InterruptHook` loads it on the
 * first call a rule covers, so a page whose runs call only ungated tools does not ship it.
 *
 * @module
 */
// Loaded on demand; it imports the steps it shares with ToolApprovalHook plainly (the bundler puts
// them in a chunk both share), four eyes (quorum-gate.ts) and the audit steps too: one chunk for the
// gate, fetched once at the first gated call. Four eyes in a chunk of its own saved 1.7 KiB at that
// call for an app without it, and cost every page 0.8 KiB more in all (gzip, bench:page-size).
import type { BeforeToolCallEvent } from "../../agent/events.js";
import { toolHookInterruptId } from "../../agent/interrupts/interrupt-id.js";
import type { JsonObject, JsonValue } from "../../agent/messages/messages.js";
import { runContext } from "../../agent/run-context.js";
import { grantId } from "../../grants/grant.js";
import type { Logger } from "../../logger.js";
import { auditDecision, auditGrantUse, auditRequest } from "./audit.js";
import {
  decideAnswer,
  type DecisionRecord,
  findGrantCover,
  offeredScopes,
  refusalNote,
  requestDeadline,
} from "./decision.js";
import type { Rule } from "./gate-rule.js";
import type { GrantLookup } from "./grant-lookup.js";
import type { ApprovalQuorum } from "./quorum.js";
import { gateQuorum } from "./quorum-gate.js";
export { checkApprover } from "./quorum-gate.js";
import type { ApprovalRequest, ApprovalScope, Decision } from "./request.js";
import { approvalName, editApprovalName, recordDecision, recordFingerprint } from "./run.js";
import { type CallSubject, callSubject, isUnknownSubject } from "./subject.js";

/** The hook's settings, as {@link ApprovalGate} gets them. */
export interface ApprovalGateOptions {
  agentName: string;
  ttlSeconds: number | undefined;
  now: () => number;
  log: Logger;
  grants: GrantLookup;
}

/** A gated call with its answer in hand, for the decision step. */
interface Answered {
  event: BeforeToolCallEvent;
  rule: Rule;
  /** The request as it was asked (stored with the interrupt), or as it would be asked now. */
  asked: JsonValue | undefined;
  response: JsonValue;
  offered: ApprovalScope[];
  /** The interrupt name the question was asked under. */
  name: string;
  subject: CallSubject;
}

/** One InterruptHook's gate (see `InterruptHook` for what it decides and how). */
export class ApprovalGate {
  readonly #agentName: string;
  readonly #ttl: number | undefined;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #grants: GrantLookup;

  /** @param o - See {@link ApprovalGateOptions}. */
  constructor(o: ApprovalGateOptions) {
    this.#agentName = o.agentName;
    this.#ttl = o.ttlSeconds;
    this.#now = o.now;
    this.#log = o.log;
    this.#grants = o.grants;
  }

  /**
   * Gates one call a rule covers: lets it run (a grant, an approval), pauses the run with a question,
   * or cancels it with a note.
   * @param event - The call.
   * @param rule - The rule that covers it.
   * @param input - The arguments to gate (the call's, or a person's edit).
   * @param name - The interrupt name to ask under.
   */
  async gate(event: BeforeToolCallEvent, rule: Rule, input: unknown, name: string): Promise<void> {
    const { toolUse, invocationState } = event;
    const checked = (await event.selectedTool?.validate?.(input)) ?? { ok: true as const, value: input };
    if (!checked.ok) return;
    const subject = callSubject(rule.subject, toolUse.name, checked.value, this.#log);
    if (subject === null) return;
    if (rule.approvals) return this.#quorum(event, rule, rule.approvals, checked.value, subject);
    const stored = event.agent.interruptState.interrupts.get(toolHookInterruptId(toolUse.toolUseId, name));
    if (stored?.response === undefined) {
      const cover = await findGrantCover({
        invocationState,
        grants: this.#grants,
        tool: toolUse.name,
        subjectKey: subject.key ?? undefined,
        remember: rule.remember,
        now: this.#now(),
      });
      if (cover) return auditGrantUse(event, cover.source === "grant" ? grantId(cover.grant) : undefined);
    } else {
      const asked = (stored.reason ?? {}) as Partial<ApprovalRequest>;
      // An answer covers what was asked, no more: the same subject (something rewrote the call since
      // it was asked → ask again about what would run now) and no scope wider than was shown.
      if ((asked.subject?.key ?? null) !== subject.key) {
        const again = editApprovalName(this.#agentName, checked.value);
        if (again === name) {
          event.cancel = `The approval for "${toolUse.name}" does not match the call; it did not run.`;
          return;
        }
        await this.gate(event, rule, input, again);
        return;
      }
    }
    const offered = offeredScopes({
      invocationState,
      remember: rule.remember,
      unknownSubject: isUnknownSubject(subject),
      asked: stored?.response === undefined ? undefined : (stored.reason ?? {}),
    });
    const request: ApprovalRequest = {
      kind: "tool_approval",
      agent: this.#agentName,
      tool: toolUse.name,
      toolUseId: toolUse.toolUseId,
      input: checked.value as JsonValue,
      subject: subject.key === null ? null : { key: subject.key, label: subject.label },
      scopes: offered,
      message: `Allow ${subject.label}?`,
    };
    const expiresAt = requestDeadline({ ttlSeconds: this.#ttl, now: this.#now() });
    if (expiresAt !== undefined) request.expiresAt = expiresAt;
    const interruptId = toolHookInterruptId(toolUse.toolUseId, name);
    if (stored?.response === undefined) {
      const shown = { interruptId, rule: rule.pattern, input: checked.value, subject: request.subject };
      await auditRequest(event, { ...shown, expiresAt: request.expiresAt });
    }
    const response = event.interrupt({ name, reason: request as unknown as JsonObject });
    const asked = stored?.reason ?? (request as unknown as JsonValue);
    await this.#decide({ event, rule, asked, response, offered, name, subject });
  }

  async #quorum(event: BeforeToolCallEvent, rule: Rule, quorum: ApprovalQuorum, input: unknown, subject: CallSubject) {
    const principal = runContext.principal.find(event.invocationState) || null;
    // An approver's run on another person's thread asks on that person's behalf (separation of duties).
    const requestedBy = runContext.requester.find(event.invocationState) || principal;
    return gateQuorum(event, input, subject, {
      principal,
      requestedBy,
      agentName: this.#agentName,
      pattern: rule.pattern,
      name: approvalName(this.#agentName),
      quorum,
      ttlSeconds: this.#ttl,
      now: this.#now,
      approve: (record) => this.#approved(event, rule, record, subject),
      refuse: (record) => this.#refused(event, record, subject),
    });
  }

  async #decide({ event, rule, asked, response, offered, name, subject }: Answered): Promise<void> {
    const interruptId = toolHookInterruptId(event.toolUse.toolUseId, name);
    const record = decideAnswer({
      interruptId,
      response,
      asked,
      offered,
      now: this.#now(),
      // With a TTL configured, a request that lost its deadline (altered snapshot) counts as expired.
      deadlineRequired: this.#ttl !== undefined,
      principal: runContext.principal.find(event.invocationState) || null,
    });
    if (record.decision === "approved") await this.#approved(event, rule, record, subject);
    else await this.#refused(event, record, subject);
  }

  /** A call the answer does not let run: audited, cancelled with a note, and recorded. */
  async #refused(event: BeforeToolCallEvent, record: DecisionRecord, subject: CallSubject): Promise<void> {
    const { toolUse } = event;
    const read = { interruptId: record.interruptId, decision: record.decision, principal: record.principal };
    if (record.unreadable !== undefined) {
      this.#log.warn("approval answer not understood; treated as a denial", {
        tool: toolUse.name,
        problem: record.unreadable,
      });
      await auditDecision(event, { ...read, note: "the answer could not be read" });
    } else await auditDecision(event, { ...read, scope: "once" });
    event.cancel = refusalNote(record, toolUse.name);
    recordDecision(event.invocationState, {
      decision: record.decision,
      tool: toolUse.name,
      subject,
      scope: "once",
      toolUseId: toolUse.toolUseId,
    });
  }

  /** An approval: edits checked (and gated again when they change the subject), then recorded once. */
  async #approved(event: BeforeToolCallEvent, rule: Rule, answer: DecisionRecord, subject: CallSubject): Promise<void> {
    const { toolUse } = event;
    const { interruptId } = answer;
    const audit = (
      decision: Decision | "refused",
      extra: { note?: string; editedArgs?: unknown; scope?: ApprovalScope } = {},
    ) => auditDecision(event, { interruptId, decision, principal: answer.principal, ...extra });
    let input = toolUse.input;
    if (answer.editedArgs !== undefined) {
      const checked = (await event.selectedTool?.validate?.(answer.editedArgs)) ?? {
        ok: true as const,
        value: answer.editedArgs,
      };
      if (!checked.ok) {
        await audit("refused", { note: "the edited arguments are invalid", editedArgs: answer.editedArgs });
        event.cancel = `The person's edited arguments for "${toolUse.name}" are invalid, so the call did not run:\n${checked.error}`;
        return;
      }
      input = answer.editedArgs;
      event.toolUse = { ...toolUse, input };
      const edited = callSubject(rule.subject, toolUse.name, checked.value, this.#log);
      // An edit can change what the call is about: ask again for the new subject.
      if (edited !== null && edited.key !== subject.key) {
        await audit("approved", { note: "the edit changes the subject: asked again", editedArgs: input });
        await this.gate(event, rule, input, editApprovalName(this.#agentName, input));
        return;
      }
    }
    if (!recordFingerprint(event.agent, interruptId, toolUse.name, toolUse.toolUseId, input)) {
      await audit("refused", { note: "the approval was already used for a different call" });
      event.cancel = `This approval was already used for a different call to "${toolUse.name}"; the call did not run.`;
      this.#log.warn("approval reused for a different input; refused", {
        tool: toolUse.name,
        toolUseId: toolUse.toolUseId,
      });
      return;
    }
    const scope = answer.scope;
    await audit("approved", { scope, ...(answer.editedArgs === undefined ? {} : { editedArgs: input }) });
    recordDecision(event.invocationState, {
      decision: "approved",
      tool: toolUse.name,
      subject,
      scope,
      toolUseId: toolUse.toolUseId,
    });
  }
}
