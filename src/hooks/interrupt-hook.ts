/**
 * InterruptHook: gates tool calls on a person's approval, remembering decisions
 * exactly as widely as the person chose, no wider.
 *
 * @module
 */
import { BeforeToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { JsonObject, JsonValue } from "../agent/messages.js";
import { UserError } from "../errors.js";
import { grantId } from "../grants/grant.js";
import type { ApprovalRequest, ApprovalScope, Decision } from "./approval/request.js";
import { toolHookInterruptId } from "../agent/interrupt-id.js";
import { runContext } from "../agent/run-context.js";
import { approvalName, editApprovalName, recordDecision, recordFingerprint } from "./approval/run.js";
import { GrantLookup } from "./approval/grant-lookup.js";
import {
  decideAnswer,
  findGrantCover,
  type DecisionRecord,
  offeredScopes,
  refusalNote,
  requestDeadline,
} from "./approval/decision.js";
import { auditDecision, auditGrantUse, auditRequest } from "./approval/audit.js";
import type { ApprovalQuorum } from "./approval/quorum.js";
import { gateRules, type GateRule, type Rule } from "./approval/gate-rule.js";
import { ApproverCheckEvent } from "../agent/approver-check.js";
import { callSubject, isUnknownSubject, type CallSubject } from "./approval/subject.js";
import { defaultLogger, type Logger } from "../logger.js";
import { compileGlob, type NameMatcher } from "./glob.js";

export type { SubjectFn } from "./approval/subject.js";
export type { GateRule } from "./approval/gate-rule.js";

/** A gated call with its answer in hand, for {@link InterruptHook}'s decision step. */
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

/** Options of {@link InterruptHook}. */
export interface InterruptHookOptions {
  /** The agent's name, in requests and interrupt names. Default `""`. */
  agentName?: string;
  /** Deadline of each request, seconds; an answer after it does not run the call. Default: none. */
  ttlSeconds?: number;
  /** Let tools annotated `readOnlyHint: true` run without asking. Default `false`. */
  skipReadOnly?: boolean;
  /** Default widest scope: `once`, `thread` or `always`. Default `once`. */
  remember?: ApprovalScope;
  /**
   * HMAC secret for remembered grants. When set, only grants whose signature
   * verifies are honoured; forged, altered or unsigned ones are ignored (the call asks) and logged.
   */
  secret?: string | CryptoKey;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
}

/**
 * Gates tool calls on a person's approval via interrupts.
 *
 * For a call to a matching tool (first matching entry wins), in order:
 * 1. read-only skip (`skipReadOnly` and the tool's `readOnlyHint`);
 * 2. no approval when the rule's `subject` returns `null`, or the input fails the tool's schema
 *    (the call will fail validation anyway; nobody is asked about it);
 * 3. a remembered grant for the same tool and subject (`forwardedProps.kaboo_grants`, or a
 *    decision given earlier in this run) lets it run;
 * 4. otherwise the run pauses with an {@link ApprovalRequest}.
 *
 * Scopes wider than `once` are offered only when the host remembers decisions (the run carries
 * `forwardedProps.kaboo_grants`) and publishes its open requests (a session exchange is present),
 * and never wider than the rule's `remember`.
 *
 * The answer: approved → the call runs once. `editedArgs` (or `tool_input`) replace the arguments
 * entirely: they are validated against the tool's schema (invalid → refused, not run) and gated
 * again under a new interrupt when the edit changes the subject. Denied, skipped, unreadable or
 * expired → the call is cancelled with a note the model reads, and the decision is recorded (an
 * unreadable answer as a denial). The answer is read by the decision step both approval hooks
 * share (`decideAnswer` in `hooks/approval/decision.ts`).
 *
 * @param tools - Tool names, globs or {@link GateRule}s.
 * @param options - See {@link InterruptHookOptions}.
 * @throws UserError when a scope is not one of {@link APPROVAL_SCOPES}, a pattern is empty, a subject is not a function or `ttlSeconds` is not positive.
 * @example
 * ```ts
 * const gate = new InterruptHook(
 *   ["delete_*", { pattern: "transfer", remember: "always", subject: (_, i) => {
 *     const to = (i as { to: string }).to;
 *     return { key: `to:${to}`, label: `transfers to ${to}` };
 *   } }],
 *   { agentName: "bank", ttlSeconds: 300, remember: "thread" },
 * );
 * const agent = new Agent({ model, tools, hooks: [gate] });
 * ```
 */
export class InterruptHook implements HookProvider {
  readonly #rules: Rule[];
  #matchers: Promise<NameMatcher[]> | undefined;
  #compiled: NameMatcher[] | undefined;
  readonly #agentName: string;
  readonly #ttl: number | undefined;
  readonly #skipReadOnly: boolean;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #grants: GrantLookup;

  constructor(tools: readonly (string | GateRule)[], options: InterruptHookOptions = {}) {
    this.#rules = gateRules(tools, options.remember ?? "once");
    if (options.ttlSeconds !== undefined && !(options.ttlSeconds > 0))
      throw new UserError("ttlSeconds must be a positive number.");
    this.#agentName = options.agentName ?? "";
    this.#ttl = options.ttlSeconds;
    this.#skipReadOnly = options.skipReadOnly ?? false;
    this.#now = options.now ?? Date.now;
    this.#log = options.logger ?? defaultLogger;
    this.#grants = new GrantLookup(options.secret, this.#log);
  }

  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeToolCallEvent, (event) => this.#onBeforeTool(event));
    registry.addCallback(ApproverCheckEvent, (event) => this.#checkApprover(event));
  }

  /** The rule covering a tool, if any (first match wins). */
  async ruleFor(toolName: string): Promise<Rule | undefined> {
    return this.#ruleOf(toolName);
  }

  /** {@link InterruptHook.ruleFor}, answered synchronously once the patterns are compiled. */
  #ruleOf(toolName: string): Rule | undefined | Promise<Rule | undefined> {
    const find = (matchers: NameMatcher[]) => {
      const i = matchers.findIndex((m) => m(toolName));
      return i < 0 ? undefined : this.#rules[i];
    };
    if (this.#compiled) return find(this.#compiled);
    this.#matchers ??= Promise.all(this.#rules.map((r) => compileGlob(r.pattern))).then((m) => {
      this.#compiled = m;
      return m;
    });
    return this.#matchers.then(find);
  }

  /** Whether a person's answer to one of this gate's four-eyes questions would count (asked at the edge). */
  async #checkApprover(event: ApproverCheckEvent): Promise<void> {
    const tool = event.question.tool;
    const quorum = typeof tool === "string" ? (await this.ruleFor(tool))?.approvals : undefined;
    if (!quorum) return;
    const { checkApprover } = await import("./approval/quorum-gate.js");
    checkApprover(event, this.#agentName, quorum);
  }

  #onBeforeTool(event: BeforeToolCallEvent): void | Promise<void> {
    // Synchronous for a tool no rule covers (no promise per ungated call).
    const rule = this.#ruleOf(event.toolUse.name);
    return rule instanceof Promise ? rule.then((r) => this.#onRule(event, r)) : this.#onRule(event, rule);
  }

  #onRule(event: BeforeToolCallEvent, rule: Rule | undefined): void | Promise<void> {
    if (!rule) return;
    if (this.#skipReadOnly && event.selectedTool?.annotations?.readOnlyHint === true) return;
    return this.#gate(event, rule, event.toolUse.input, approvalName(this.#agentName));
  }

  async #gate(event: BeforeToolCallEvent, rule: Rule, input: unknown, name: string): Promise<void> {
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
        await this.#gate(event, rule, input, again);
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
    // Four eyes loads on the first call under a rule with `approvals`: an app without it does not ship it.
    const { gateQuorum } = await import("./approval/quorum-gate.js");
    const principal = runContext.principal.find(event.invocationState) || null;
    // An approver's run on another person's thread asks on that person's behalf (separation of duties).
    const requestedBy = runContext.requester.find(event.invocationState) || principal;
    return gateQuorum(event, input, subject, {
      principal,
      requestedBy,
      deps: { toolHookInterruptId, auditRequest, auditDecision, decideAnswer, requestDeadline },
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
        await this.#gate(event, rule, input, editApprovalName(this.#agentName, input));
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
