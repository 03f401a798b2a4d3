/**
 * InterruptHook: gates tool calls on a person's approval, remembering decisions
 * exactly as widely as the person chose, no wider.
 *
 * @module
 */
import { lazy } from "../lazy.js";
import { BeforeToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { UserError } from "../errors.js";
import type { ApprovalScope } from "./approval/request.js";
import { approvalName } from "./approval/run.js";
import { GrantLookup } from "./approval/grant-lookup.js";
import type { ApprovalGateOptions } from "./approval/gate.js";
import { gateRules, type GateRule, type Rule } from "./approval/gate-rule.js";
import { ApproverCheckEvent } from "./approval/approver-check.js";
import { defaultLogger, type Logger } from "../logger.js";
import { RuleIndex } from "./approval/rule-index.js";

export type { SubjectFn } from "./approval/subject.js";
export type { GateRule } from "./approval/gate-rule.js";

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
   * verifies are honoured; forged, altered or unsigned ones are ignored (the call asks) and logged. `undefined`
   * is as if not set (the handler's `context.secret` passes straight in).
   */
  secret?: string | CryptoKey | undefined;
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
  readonly #rules: RuleIndex;
  readonly #agentName: string;
  readonly #skipReadOnly: boolean;
  readonly #gateOptions: ApprovalGateOptions;
  readonly #gate = lazy(() => import("./approval/gate.js").then((m) => new m.ApprovalGate(this.#gateOptions)));

  constructor(tools: readonly (string | GateRule)[], options: InterruptHookOptions = {}) {
    this.#rules = new RuleIndex(gateRules(tools, options.remember ?? "once"));
    if (options.ttlSeconds !== undefined && !(options.ttlSeconds > 0))
      throw new UserError("ttlSeconds must be a positive number.");
    this.#agentName = options.agentName ?? "";
    this.#skipReadOnly = options.skipReadOnly ?? false;
    const log = options.logger ?? defaultLogger;
    this.#gateOptions = {
      agentName: this.#agentName,
      ttlSeconds: options.ttlSeconds,
      now: options.now ?? Date.now,
      log,
      grants: new GrantLookup(options.secret, log),
    };
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
    return this.#rules.ruleOf(toolName);
  }

  /** Whether a person's answer to one of this gate's four-eyes questions would count (asked at the edge). */
  async #checkApprover(event: ApproverCheckEvent): Promise<void> {
    const tool = event.question.tool;
    const quorum = typeof tool === "string" ? (await this.ruleFor(tool))?.approvals : undefined;
    if (!quorum) return;
    // In the gate's chunk (four eyes is loaded with the gate).
    const { checkApprover } = await import("./approval/gate.js");
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
    // The gate loads on the first call a rule covers: a run that calls only ungated tools never fetches it.
    // A failed load fails this call (nothing runs unasked) and is tried again on the next one.
    return this.#gate().then((gate) => gate.gate(event, rule, event.toolUse.input, approvalName(this.#agentName)));
  }
}
