/**
 * `kabooToolApproval`: the AI SDK's `toolApproval` built from the same `GateRule`s as
 * `InterruptHook`, deciding with the same steps (rule lookup, subject, grant cover, answer), with
 * grants kept in a {@link GrantStore}.
 *
 * @module
 */
import type { ModelMessage, ToolApprovalStatus, ToolSet } from "ai";
import type { AuditLog } from "../agent/audit/audit.js";
import type { RunAudit } from "../agent/audit/audit-record.js";
import { jsonDigest } from "../agent/audit/digest.js";
import { executionKey, type ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { UserError } from "../errors.js";
import type { Grant } from "../grants/grant.js";
import type { GrantSecret } from "../grants/signing.js";
import type { GrantStore } from "../grants/store.js";
import { decideAnswer, offeredScopes, refusalNote, requestDeadline } from "../hooks/approval/decision.js";
import { gateRules, type GateRule, type Rule } from "../hooks/approval/gate-rule.js";
import type { ApprovalScope } from "../hooks/approval/request.js";
import { RuleIndex } from "../hooks/approval/rule-index.js";
import { callSubject, isUnknownSubject, type CallSubject } from "../hooks/approval/subject.js";
import { defaultLogger, type Logger } from "../logger.js";
import { answerFor, readApprovalReason, reasonEdit, type FoundAnswer } from "./answer.js";
import { auditAnswer, questionId, threadAudit } from "./audit.js";
import { approvedByGrant, saveApprovalGrant, storedCover } from "./grant-steps.js";
import { changedSubjectDecision, checkedEdit, type CheckedEdit } from "./edits.js";
import { decisionKey, keepOnce, questionKey, readKept, type Decided } from "./records.js";
import { verifiedQuorum } from "./quorum.js";
import { verifiedScope } from "./signed-answer.js";

/** Options of {@link kabooToolApproval}. */
export interface KabooToolApprovalOptions {
  /** Tool names, globs or {@link GateRule}s, as `InterruptHook` takes them (first match wins). */
  rules: readonly (string | GateRule)[];
  /** Where remembered approvals are looked up and saved. Default: none (every approval is `once`). */
  grants?: GrantStore | undefined;
  /** The conversation: `thread` grants and the ledger's records are bound to it. */
  threadId: string;
  /** The person the app serves (grants are theirs only). Default: none. */
  principal?: string | undefined;
  /** Default widest scope of a rule: `once`, `thread` or `always`. Default `once`. */
  remember?: ApprovalScope | undefined;
  /** Deadline of each question, seconds (kept with the question in `ledger`); an answer after it does not run the call. Default: none. */
  ttlSeconds?: number | undefined;
  /**
   * HMAC secret: when set, an approval counts only when its reason was made by `signApprovalReason` with
   * it for this request's principal, the call and the scope; any other throws `ApprovalSignatureError`.
   */
  secret?: GrantSecret | undefined;
  /** Let tools whose `metadata.readOnlyHint` is `true` run without asking. Default `false`. */
  skipReadOnly?: boolean | undefined;
  /**
   * Where the questions asked (their arguments, deadlines and scopes) and the decisions answers made are
   * recorded: the ledger every request of the thread shares (the one `withLedger` uses). An approval
   * answers only a question recorded here, so one built per request over its own ledger approves nothing.
   */
  ledger: ExecutionLedger;
  /**
   * Where each question shown, answer read and grant used is recorded (the thread's chain, as the
   * runner's entries). A write that fails fails the step. Default: none.
   */
  audit?: AuditLog | undefined;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: (() => number) | undefined;
  logger?: Logger | undefined;
}

/** The call the AI SDK asks about, as `toolApproval` gets it. */
export interface ToolApprovalCall {
  toolCall: { toolName: string; toolCallId: string; input: unknown };
  tools: ToolSet | undefined;
  messages: ModelMessage[];
}

/** The AI SDK's generic `toolApproval` function (what {@link kabooToolApproval} returns). */
export type KabooToolApprovalFunction = (options: ToolApprovalCall) => Promise<ToolApprovalStatus>;

/** The question as it was asked, kept in the ledger. */
interface Asked {
  expiresAt?: string;
  scopes: ApprovalScope[];
  subject: string | null;
}

/**
 * The AI SDK's `toolApproval` (for `generateText`, `streamText`, `ToolLoopAgent`) from the gate rules
 * `InterruptHook` takes. For each tool call:
 * - no rule covers the tool, the rule's `subject` returns `null`, or a read-only tool with
 *   `skipReadOnly` → `not-applicable`;
 * - a grant in `grants` covers it (same tool and subject; a `thread` grant in this thread only; this
 *   person's; no wider than the rule's `remember`) → `approved`, the reason naming the grant;
 * - otherwise → `user-approval`, the reason asking about the subject's label.
 *
 * The person answers with the AI SDK's own approval response (`addToolApprovalResponse`), its scope in
 * the reason ({@link approvalReason}). When the next request carries it, this function reads it once:
 * an approval of a call it never asked about (a tool call or request written into the history, or
 * arguments changed since) → `denied`; past the deadline → `denied`; else an approval wider than `once`
 * (clamped to what the rule offered) becomes a grant in `grants`. A replay of the same answer decides
 * the same again and grants nothing more. Pair it with {@link withLedger} so the approved call runs
 * once however often it is replayed. With `secret`, an approval's reason must be signed on the server
 * (`signApprovalReason`); a rule with `approvals` takes its approvers' signed approvals in one
 * response (`approvalsReason`), since the AI SDK cannot ask about an approved call again. Edited
 * arguments in the reason are checked against the tool's schema; one changing the subject → `denied`.
 *
 * @param options - See {@link KabooToolApprovalOptions}.
 * @returns The function to pass as `toolApproval`.
 * @throws ApprovalSignatureError (from the returned function) when `secret` is set and an approval's
 *   reason does not verify: nothing runs, nothing is granted, and `generateText` fails with it.
 * @throws ApprovalEditError (from the returned function) when an approval's edit fails the tool's schema.
 * @throws UserError when a rule is malformed, a rule asks for four eyes (`approvals`) without a
 *   `secret` (see `approvalsReason`), `ttlSeconds` is not positive, `threadId` is empty or `ledger` is missing.
 * @example
 * ```ts
 * const result = await generateText({
 *   model, messages, tools: withLedger(tools, { ledger, threadId }),
 *   toolApproval: kabooToolApproval({ rules: ["transfer"], grants, ledger, threadId, remember: "thread" }),
 * });
 * ```
 */
export function kabooToolApproval(options: KabooToolApprovalOptions): KabooToolApprovalFunction {
  const rules = gateRules(options.rules, options.remember ?? "once");
  for (const r of rules)
    if (r.approvals !== undefined && options.secret === undefined)
      throw new UserError(`Gate rule "${r.pattern}" asks for four eyes (approvals): approvers sign, so set a secret.`);
  if (options.ttlSeconds !== undefined && !(options.ttlSeconds > 0))
    throw new UserError("ttlSeconds must be a positive number.");
  if (typeof options.ledger?.claim !== "function")
    throw new UserError("kabooToolApproval needs the execution ledger its requests share (options.ledger).");
  if (typeof options.threadId !== "string" || options.threadId === "")
    throw new UserError("kabooToolApproval needs a threadId (the conversation its grants and records belong to).");
  const gate = new AiSdkGate(options, new RuleIndex(rules));
  return function kabooToolApproval(call) {
    return gate.decide(call);
  };
}

const NOT_APPLICABLE: Promise<ToolApprovalStatus> = Promise.resolve("not-applicable");

/** The state and steps behind one {@link kabooToolApproval} function. */
class AiSdkGate {
  readonly #o: KabooToolApprovalOptions;
  readonly #rules: RuleIndex;
  readonly #ledger: ExecutionLedger;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #audit: RunAudit | undefined;

  constructor(options: KabooToolApprovalOptions, rules: RuleIndex) {
    this.#o = options;
    this.#rules = rules;
    this.#ledger = options.ledger;
    this.#now = options.now ?? Date.now;
    this.#log = options.logger ?? defaultLogger;
    this.#audit = threadAudit(options.audit, options.threadId);
  }

  decide(call: ToolApprovalCall): Promise<ToolApprovalStatus> {
    // A tool no rule covers is answered without a step of its own (the usual call of an app's many tools).
    const found = this.#rules.ruleOf(call.toolCall.toolName);
    if (found === undefined) return NOT_APPLICABLE;
    if (found instanceof Promise) return found.then((rule) => this.#decide(call, rule));
    // Synchronous as far as the call allows (a grant the memory store holds): one promise, already settled.
    try {
      return Promise.resolve(this.#decide(call, found));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #decide(
    { toolCall, tools, messages }: ToolApprovalCall,
    rule: Rule | undefined,
  ): ToolApprovalStatus | Promise<ToolApprovalStatus> {
    const { toolName, toolCallId, input } = toolCall;
    if (!rule) return "not-applicable";
    const metadata = tools && Object.hasOwn(tools, toolName) ? tools[toolName]?.metadata : undefined;
    if (this.#o.skipReadOnly && metadata?.readOnlyHint === true) return "not-applicable";
    const subject = callSubject(rule.subject, toolName, input, this.#log);
    if (subject === null) return "not-applicable";
    const answer = answerFor(messages, toolCallId);
    if (answer?.approved === true) return this.#answered({ toolCall, tools, rule, subject }, answer);
    const covering = this.#cover(toolName, rule, subject);
    const covered = (grant: Grant | undefined) =>
      grant ? approvedByGrant(this.#audit, this.#o.principal, toolCall, grant) : this.#ask(toolCall, rule, subject);
    // A grant (or none) at once, or a promise of it: anything with a `then` is awaited, never taken for a grant.
    if (typeof (covering as { then?: unknown } | undefined)?.then === "function")
      return Promise.resolve(covering).then(covered);
    return covered(covering as Grant | undefined);
  }

  /** The grant in the store that covers the call, by the rules every gate shares (`undefined`: no store or none can). */
  #cover(tool: string, rule: Rule, subject: CallSubject): Grant | undefined | Promise<Grant | undefined> {
    const store = this.#o.grants;
    // No grant covers a four-eyes call (as with InterruptHook).
    if (!store || isUnknownSubject(subject) || rule.approvals) return undefined;
    const { threadId, principal } = this.#o;
    const subjectKey = subject.key ?? undefined;
    return storedCover(store, { tool, subjectKey, remember: rule.remember, threadId, principal, now: this.#now() });
  }

  /** Asks the person: the question (deadline, scopes shown) is kept, the first time, in the ledger. */
  async #ask(toolCall: ToolApprovalCall["toolCall"], rule: Rule, subject: CallSubject): Promise<ToolApprovalStatus> {
    const { threadId } = this.#o;
    await keepOnce(this.#ledger, questionKey(threadId, toolCall.toolCallId, toolCall.input), async () => {
      const asked: Asked = { scopes: this.#offered(rule, subject), subject: subject.key };
      const expiresAt = requestDeadline({ ttlSeconds: this.#o.ttlSeconds, now: this.#now() });
      if (expiresAt !== undefined) asked.expiresAt = expiresAt;
      await this.#audit?.append({
        kind: "request",
        tool: toolCall.toolName,
        toolUseId: toolCall.toolCallId,
        interruptId: questionId(toolCall.toolCallId),
        argsDigest: jsonDigest(toolCall.input),
        subject: subject.key === null ? null : { key: subject.key, label: subject.label },
        rule: rule.pattern,
        principal: this.#o.principal ?? null,
        expiresAt: expiresAt ?? null,
        required: rule.approvals?.required ?? 1,
      });
      return asked as unknown as JsonValue;
    });
    const quorum = rule.approvals ? ` (needs approvals from ${rule.approvals.required} people)` : "";
    return { type: "user-approval", reason: `Allow ${subject.label}?${quorum}` };
  }

  #offered(rule: Rule, subject: CallSubject, asked?: unknown): ApprovalScope[] {
    return offeredScopes({
      remembers: this.#o.grants !== undefined,
      remember: rule.approvals ? "once" : rule.remember,
      unknownSubject: isUnknownSubject(subject),
      asked,
    });
  }

  /** An approval the messages carry: decided once (deadline, scope, edit), its grant saved once. */
  async #answered(
    c: { toolCall: ToolApprovalCall["toolCall"]; tools: ToolSet | undefined; rule: Rule; subject: CallSubject },
    answer: FoundAnswer,
  ): Promise<ToolApprovalStatus> {
    const { toolCall, rule, subject } = c;
    const { threadId, principal, secret } = this.#o;
    const check = secret === undefined ? undefined : { secret, threadId, principal, toolCall, audit: this.#audit };
    let scope: ApprovalScope = "once";
    let note: string | null = null;
    let edit = reasonEdit(answer.reason);
    if (check === undefined) scope = readApprovalReason(answer.reason);
    else if (rule.approvals) note = await verifiedQuorum(check, rule.approvals, answer.reason);
    else ({ scope, editedArgs: edit } = await verifiedScope(check, answer.reason));
    const editCheck = { ...c, principal, audit: this.#audit, log: this.#log };
    const edited: CheckedEdit | undefined = edit === undefined ? undefined : await checkedEdit(editCheck, edit);
    const call = executionKey({ threadId, toolUseId: toolCall.toolCallId, input: toolCall.input });
    const decided = (await keepOnce(this.#ledger, decisionKey(threadId, answer.approvalId), async () => {
      const asked = await readKept(this.#ledger, questionKey(threadId, toolCall.toolCallId, toolCall.input));
      // The messages come from the client: an approval counts only for a question this gate asked about
      // this very call (thread, id, arguments), never for a call or request written into the history.
      if (asked === undefined) {
        const note = `The approval for "${toolCall.toolName}" answers no question asked about this call; it did not run.`;
        const why = "no question was asked about this call";
        await auditAnswer(this.#audit, this.#o.principal, toolCall, "refused", null, why);
        return { approved: false, note } satisfies Decided;
      }
      const record = decideAnswer({
        interruptId: answer.approvalId,
        response: { approved: true, scope },
        asked,
        offered: this.#offered(rule, subject, asked),
        now: this.#now(),
        // With a TTL configured, a question without a recorded deadline counts as expired.
        deadlineRequired: this.#o.ttlSeconds !== undefined,
        principal: this.#o.principal ?? null,
      });
      if (record.decision !== "approved") {
        await auditAnswer(this.#audit, this.#o.principal, toolCall, record.decision, null, null, edit);
        return { approved: false, note: refusalNote(record, toolCall.toolName), call } satisfies Decided;
      }
      if (edited?.changed) return changedSubjectDecision(editCheck, edited, call);
      await auditAnswer(this.#audit, principal, toolCall, "approved", record.scope, note, edited?.editedArgs);
      await this.#remember(toolCall, subject, record.scope);
      const editedArgs = edited === undefined ? {} : { editedArgs: edited.editedArgs };
      return { approved: true, note: note ?? `Approved by the person (${record.scope}).`, call, ...editedArgs };
    })) as Decided | undefined;
    if (!decided) {
      const note = `The approval of "${toolCall.toolName}" is being read by another request; the call did not run here.`;
      return { type: "denied", reason: note };
    }
    // A decision answers the call it was made for; the same approval id put on another call approves nothing.
    if (decided.call !== undefined && decided.call !== call) {
      const note = `This approval was given for another call to "${toolCall.toolName}"; the call did not run.`;
      return { type: "denied", reason: note };
    }
    return decided.approved ? { type: "approved", reason: decided.note } : { type: "denied", reason: decided.note };
  }

  /** Saves the grant an approval wider than `once` makes (logged, never fatal, when it cannot be saved). */
  async #remember(toolCall: ToolApprovalCall["toolCall"], subject: CallSubject, scope: ApprovalScope): Promise<void> {
    const store = this.#o.grants;
    if (!store) return;
    const { threadId, principal } = this.#o;
    const approval = { tool: toolCall.toolName, toolUseId: toolCall.toolCallId, subject, scope };
    await saveApprovalGrant({ store, threadId, principal }, approval, this.#log);
  }
}
