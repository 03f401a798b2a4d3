/**
 * The gate's rules: which tools it covers, how far a decision may reach, what it is about, and how
 * many people must approve. Checked once, when the hook is built.
 *
 * @module
 */
import { UserError } from "../../errors.js";
import { checkGlob } from "../glob.js";
import { checkScopeOption } from "./decision.js";
import type { ApprovalQuorum } from "./quorum.js";
import type { ApprovalScope } from "./request.js";
import type { SubjectFn } from "./subject.js";

/** Which tools a gate covers, and how far a decision about them may reach. */
export interface GateRule {
  /** Tool name or glob (`merchant___*`, `@(pay|refund)_*`; braces are refused, see `glob.ts`). */
  pattern: string;
  /** Widest scope for these tools; default: the hook's `remember`. */
  remember?: ApprovalScope;
  /** What a remembered decision covers; default: the whole tool. */
  subject?: SubjectFn;
  /**
   * Four eyes: approvals from `required` distinct people (principals) before the call runs, each
   * `eligible` (default: anyone with a principal), never the requester with `forbidRequester`. No
   * grant covers such a call and only `once` is offered. Default: one approval from anyone.
   */
  approvals?: ApprovalQuorum;
}

/** A checked rule with its defaults filled in. */
export interface Rule {
  pattern: string;
  remember: ApprovalScope;
  subject: SubjectFn | undefined;
  approvals: ApprovalQuorum | undefined;
}

/**
 * Checks and completes a gate's rules.
 * @param tools - Tool names, globs or rules.
 * @param remember - The hook's default widest scope.
 * @returns The rules, in order.
 * @throws UserError when `tools` is not an array, a rule is not one, a scope is unknown, a pattern is empty or
 *   is refused (`globProblem`), a subject is not a function, or `approvals` is malformed.
 */
export function gateRules(tools: readonly (string | GateRule)[], remember: ApprovalScope): Rule[] {
  if (!Array.isArray(tools)) throw new UserError("A gate's rules must be an array of tool names, globs or rules.");
  if (remember !== undefined) checkScopeOption(remember);
  // One pass, no intermediate arrays (a gate built per request, the AI SDK's, checks its rules every time);
  // indexed, so a hole in the list is a rule like any other malformed one.
  const out: Rule[] = [];
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    const r = typeof t === "string" ? { pattern: t } : t;
    if (typeof r !== "object" || r === null) throw new UserError("Every gate rule needs a non-empty pattern.");
    // Each field read once: what is checked is what the gate keeps (a getter cannot answer another value later).
    const { pattern, remember: scope, subject, approvals } = r;
    if (typeof pattern !== "string" || pattern === "")
      throw new UserError("Every gate rule needs a non-empty pattern.");
    if (scope !== undefined) checkScopeOption(scope);
    checkGlob(pattern, `gate rule "${pattern}"`);
    if (subject !== undefined && typeof subject !== "function")
      throw new UserError(`The subject of gate rule "${pattern}" must be a function.`);
    checkQuorumOption(pattern, approvals);
    out.push({ pattern, remember: scope ?? remember, subject, approvals });
  }
  return out;
}

/**
 * Checks a rule's `approvals` option.
 * @param pattern - The rule, for messages.
 * @param quorum - The option.
 * @throws UserError when `required` is not a positive integer or `eligible` is not a function.
 */
export function checkQuorumOption(pattern: string, quorum: ApprovalQuorum | undefined): void {
  if (quorum === undefined) return;
  if (typeof quorum !== "object" || quorum === null)
    throw new UserError(`approvals of gate rule "${pattern}" must be an object ({ required, eligible? }).`);
  if (!Number.isInteger(quorum.required) || quorum.required < 1)
    throw new UserError(`approvals.required of gate rule "${pattern}" must be a positive integer.`);
  if (quorum.eligible !== undefined && typeof quorum.eligible !== "function")
    throw new UserError(`approvals.eligible of gate rule "${pattern}" must be a function.`);
}
