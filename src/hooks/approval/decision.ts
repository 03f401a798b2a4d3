/**
 * The decision step both approval hooks take (`InterruptHook` for a gated call, `ToolApprovalHook`
 * for a tool that asks itself): whether a remembered decision covers the call, which scopes the
 * person is shown, the request's deadline, and what an answer decides. One policy, one place.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import type { JsonObject } from "../../agent/messages/messages.js";
import { runContext } from "../../agent/run-context.js";
import { UserError } from "../../errors.js";
import type { GrantQuery } from "../../grants/find.js";
import { GRANT_SCOPES, type Grant, type GrantScope } from "../../grants/grant.js";
import type { GrantLookup } from "./grant-lookup.js";
import {
  APPROVAL_SCOPES,
  clampScope,
  decisionNote,
  parseTime,
  readAnswer,
  scopesUpTo,
  type ApprovalScope,
  type Decision,
} from "./request.js";
import { remembers, runGrants } from "./run.js";

/**
 * Checks a `remember` option.
 * @throws UserError when `scope` is not one of {@link APPROVAL_SCOPES}.
 */
export function checkScopeOption(scope: unknown): void {
  if (!APPROVAL_SCOPES.includes(scope as ApprovalScope)) {
    throw new UserError(`Unknown approval scope ${JSON.stringify(scope)}; use one of ${APPROVAL_SCOPES.join(", ")}.`);
  }
}

/** What let a call through without a question. */
export type GrantCover = { source: "run" } | { source: "grant"; grant: Grant };

/** Options of {@link findGrantCover}. */
export interface GrantCoverOptions {
  invocationState: InvocationState;
  /** The hook's view of the run's remembered grants. */
  grants: GrantLookup;
  tool: string;
  /** The call's subject key; `undefined`: the whole tool. */
  subjectKey: string | undefined;
  /** The widest scope the rule allows today. */
  remember: ApprovalScope;
  /** Epoch ms. */
  now: number;
}

/**
 * Whether a remembered decision covers the call: an approval wider than `once` given earlier in
 * this run, or a remembered grant (`forwardedProps.kaboo_grants`) for the same tool and subject.
 * A grant counts only as far as the rule reaches today (a rule narrowed from `always` to `once`
 * asks again), only in its thread when it is a `thread` grant, and only for the person it was
 * given by (the run's principal).
 * @param o - See {@link GrantCoverOptions}.
 * @returns What covered the call, or `undefined`: ask.
 */
export async function findGrantCover(o: GrantCoverOptions): Promise<GrantCover | undefined> {
  const { invocationState, tool, subjectKey } = o;
  if (runGrants(invocationState).some((g) => g.tool === tool && g.subjectKey === subjectKey)) return { source: "run" };
  const grant = await coveringGrant((query) => o.grants.find(invocationState, query), {
    tool,
    subjectKey,
    remember: o.remember,
    threadId: runContext.threadId.find(invocationState) || undefined, // "" names no conversation
    principal: runContext.principal.find(invocationState) || undefined,
    now: o.now,
  });
  return grant ? { source: "grant", grant } : undefined;
}

/**
 * The grant scopes a rule's `remember` of `thread` reaches (`always` reaches every one, `once` none). Frozen, as
 * GRANT_SCOPES: the same array goes to every lookup, and one that changed it would widen every later one.
 */
const THREAD_ONLY: readonly GrantScope[] = Object.freeze(["thread"] as const);

/** The call {@link coveringGrant} looks a grant up for. */
export interface CoveredCall {
  tool: string;
  /** The call's subject key; `undefined`: the whole tool. */
  subjectKey: string | undefined;
  /** The widest scope the rule allows today. */
  remember: ApprovalScope;
  /** The call's conversation; `undefined`: none (no `thread` grant covers it). */
  threadId: string | undefined;
  /** The person the call serves; `undefined`: only grants that name no person cover it. */
  principal: string | undefined;
  /** Epoch ms. */
  now: number;
}

/**
 * The grant that lets a call run without a question, as every gate built from `GateRule`s asks it:
 * same tool and subject, a scope no wider than the rule reaches today (a rule narrowed from `always`
 * to `once` asks again), a `thread` grant only in its thread, only the call's person's grants.
 * @param find - Looks a grant up in the gate's grants (a run's `kaboo_grants`, a grant store's list).
 * @param call - See {@link CoveredCall}.
 * @returns The covering grant, or `undefined`: ask; a promise of it only when `find` answers with one.
 */
export function coveringGrant(
  find: (query: GrantQuery) => Grant | undefined | Promise<Grant | undefined>,
  call: CoveredCall,
): Grant | undefined | Promise<Grant | undefined> {
  const scopes = call.remember === "always" ? GRANT_SCOPES : call.remember === "thread" ? THREAD_ONLY : undefined;
  if (scopes === undefined) return undefined;
  const { tool, subjectKey, threadId, principal, now } = call;
  return find({ tool, subjectKey, threadId, now, scopes, principal });
}

/** Options of {@link offeredScopes}. */
export interface OfferedScopesOptions {
  /** The run (whether its host remembers decisions); not read when `remembers` is given. */
  invocationState?: InvocationState | undefined;
  /** Whether the host remembers decisions. Default: as the run says (see {@link offeredScopes}). */
  remembers?: boolean | undefined;
  /** The widest scope the rule (or hook) allows. */
  remember: ApprovalScope;
  /** A subject that could not be computed is never remembered beyond this call. Default `false`. */
  unknownSubject?: boolean;
  /** The request as it was asked, when answering one: nothing wider than it showed is offered. */
  asked?: unknown;
}

/**
 * The scopes a person may choose: `once`, and wider up to `remember` only when the host remembers
 * decisions (it sent `forwardedProps.kaboo_grants` and publishes its open requests). When an answer
 * comes back, no wider than was shown then, nor than this hook would offer now (the host may have
 * stopped remembering).
 * @param o - See {@link OfferedScopesOptions}.
 * @returns Scopes, narrowest first; always starts with `once`.
 */
export function offeredScopes(o: OfferedScopesOptions): ApprovalScope[] {
  const now = o.unknownSubject
    ? scopesUpTo("once", false)
    : scopesUpTo(o.remember, o.remembers ?? (o.invocationState !== undefined && remembers(o.invocationState)));
  if (o.asked === undefined) return now;
  const scopes = (o.asked as { scopes?: unknown } | null)?.scopes;
  const shown: unknown[] = Array.isArray(scopes) ? scopes : [];
  return now.filter((scope) => scope === "once" || shown.includes(scope));
}

/**
 * The deadline of a new request.
 * @param o - `given`: a deadline the asker set (ISO 8601); `ttlSeconds`: else, this long from `now` (epoch ms).
 * @returns ISO 8601, or `undefined` for no deadline.
 */
export function requestDeadline(o: {
  given?: string | undefined;
  ttlSeconds?: number | undefined;
  now: number;
}): string | undefined {
  if (o.given !== undefined) return o.given;
  return o.ttlSeconds === undefined ? undefined : new Date(o.now + o.ttlSeconds * 1000).toISOString();
}

/**
 * Whether a request is past its deadline: the one judgement of expiry, for both hooks and for a host
 * that refuses a late resume before the run.
 * @param o - `request`: the request as asked (its `expiresAt`); `now`: epoch ms; `deadlineRequired`:
 *   the asker always sets a deadline (a TTL is configured), so a request without a readable one was
 *   altered and counts as expired. Default `false`.
 * @returns `true` when an answer now must not run the call.
 */
export function isPastDeadline(o: { request: unknown; now: number; deadlineRequired?: boolean }): boolean {
  const deadline = parseTime((o.request as { expiresAt?: unknown } | null | undefined)?.expiresAt);
  if (deadline === undefined) return o.deadlineRequired === true;
  return o.now > deadline;
}

/** Options of {@link decideAnswer}. */
export interface DecideAnswerOptions {
  /** The interrupt the answer is for. */
  interruptId: string;
  /** The answer as sent (untrusted). */
  response: unknown;
  /** The request as it was asked (stored with the interrupt): its deadline. */
  asked: unknown;
  /** The scopes an approval may take ({@link offeredScopes} with `asked`). */
  offered: readonly ApprovalScope[];
  /** Epoch ms. */
  now: number;
  /** See {@link isPastDeadline}. Default `false`. */
  deadlineRequired?: boolean;
  /** Who answered, when the host knows. Default: unknown (`null`). */
  principal?: string | null | undefined;
}

/** What one answer decided. */
export interface DecisionRecord {
  interruptId: string;
  decision: Decision;
  /** The scope granted: the chosen one clamped to `offered` when approved, else `once`. */
  scope: ApprovalScope;
  /** A full replacement of the arguments, when the person approved an edit (not yet validated). */
  editedArgs?: JsonObject;
  /** Set when the answer could not be read (the decision is then `denied`): why. */
  unreadable?: string;
  /** Who answered, when known. */
  principal: string | null;
}

/**
 * What an answer decides, the same for every approval hook:
 * - an **unreadable** answer (not a boolean, not an approval payload) is a **denial**, recorded and
 *   reported like any other (`unreadable` says why), never a silent approval and never ignored;
 * - a readable answer to a request past its deadline ({@link isPastDeadline}) is `expired`;
 * - otherwise `approved`, `denied` or `skipped` (a cancelled AG-UI resume), as the answer says; an
 *   approval takes the chosen scope clamped to `offered` and may carry edited arguments.
 * @param o - See {@link DecideAnswerOptions}.
 * @returns The decision record.
 */
export function decideAnswer(o: DecideAnswerOptions): DecisionRecord {
  const answer = readAnswer(o.response);
  const base = { interruptId: o.interruptId, principal: o.principal ?? null, scope: "once" as ApprovalScope };
  if (answer.invalid) return { ...base, decision: "denied", unreadable: answer.invalid };
  if (isPastDeadline({ request: o.asked, now: o.now, deadlineRequired: o.deadlineRequired ?? false }))
    return { ...base, decision: "expired" };
  if (answer.decision !== "approved") return { ...base, decision: answer.decision };
  const record: DecisionRecord = { ...base, decision: "approved", scope: clampScope(answer.scope, o.offered) };
  if (answer.editedArgs !== undefined) record.editedArgs = answer.editedArgs;
  return record;
}

/**
 * The note the model reads when a decision does not let the call run.
 * @param record - From {@link decideAnswer}.
 * @param tool - The tool's name.
 */
export function refusalNote(record: Pick<DecisionRecord, "decision" | "unreadable">, tool: string): string {
  return decisionNote(
    record.decision,
    tool,
    record.unreadable === undefined ? undefined : "(The answer could not be read.)",
  );
}
