/**
 * Per-run bookkeeping of the approval hooks. Everything lives in the run's
 * `invocationState` (under symbols, so it never leaks into JSON) or in the
 * agent's own state, never in module variables.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import { isCallInterrupt } from "../../agent/interrupts/interrupt-id.js";
import type { JsonObject, JsonValue } from "../../agent/messages/messages.js";
import { grantsIn, privateRunKey, runContext } from "../../agent/run-context.js";
import { parseGrant } from "../../grants/grant.js";
import type { GrantInput } from "../../grants/store.js";
import { TOOL_APPROVAL_KEY, jsonHash, type ApprovalScope, type Decision } from "./request.js";

/** A decision taken in this run, for the host to remember (`thread`/`always`) or audit. */
export interface ApprovalDecision {
  decision: Decision;
  tool: string;
  toolUseId: string;
  subject: { key: string | null; label: string };
  /** The scope granted, clamped to what was offered. */
  scope: ApprovalScope;
}

/** A remembered-grant use of this run: an approval wider than `once`. */
export interface RunGrant {
  tool: string;
  subjectKey: string | undefined;
}

const isArray = Array.isArray as (v: unknown) => v is unknown[];
// This run's bookkeeping, private to the approval hooks (under symbols: never in JSON).
const decisionsKey = privateRunKey("approvalDecisions", isArray as (v: unknown) => v is ApprovalDecision[]);
const runGrantsKey = privateRunKey("runGrants", isArray as (v: unknown) => v is RunGrant[]);

/** Agent-state key of the consumed-approval record (interrupt id → call fingerprint). */
export const CONSUMED_APPROVALS_KEY = "kaboo_consumed_approvals";
const CONSUMED_LIMIT = 500;

/** The interrupt name of an approval request of this agent. */
export function approvalName(agentName: string): string {
  return agentName ? `${agentName}:${TOOL_APPROVAL_KEY}` : TOOL_APPROVAL_KEY;
}

/** The interrupt name of the question asked again about edited arguments (one per distinct edit). */
export function editApprovalName(agentName: string, input: unknown): string {
  return `${approvalName(agentName)}:edit:${jsonHash(input)}`;
}

/**
 * Whether decisions may be remembered beyond this call: the host sends its grants
 * (`forwardedProps.kaboo_grants` present, even empty) *and* the run publishes its open requests
 * (a session exchange that publishes approvals).
 */
export function remembers(invocationState: InvocationState): boolean {
  return (
    grantsIn(invocationState).sent && runContext.sessionExchange.find(invocationState)?.publishesApprovals === true
  );
}

/** Decisions taken so far in this run (the AG-UI adapter stores `thread`/`always` ones in its GrantStore). */
export function approvalDecisions(invocationState: InvocationState): readonly ApprovalDecision[] {
  return decisionsKey.find(invocationState) ?? [];
}

/** Records a decision; an approval wider than `once` also covers later calls of this run. */
export function recordDecision(invocationState: InvocationState, decision: ApprovalDecision): void {
  const decisions = decisionsKey.find(invocationState) ?? [];
  decisions.push(decision);
  decisionsKey.set(invocationState, decisions);
  if (decision.decision === "approved" && decision.scope !== "once") {
    const grants = runGrantsKey.find(invocationState) ?? [];
    grants.push({ tool: decision.tool, subjectKey: decision.subject.key ?? undefined });
    runGrantsKey.set(invocationState, grants);
  }
}

/** Approvals wider than `once` given earlier in this run. */
export function runGrants(invocationState: InvocationState): readonly RunGrant[] {
  return runGrantsKey.find(invocationState) ?? [];
}

/** Options of {@link grantsFromDecisions}. */
export interface GrantsFromDecisionsOptions {
  /** The run's decisions ({@link approvalDecisions}). */
  decisions: readonly ApprovalDecision[];
  /** The run's conversation: a `thread` grant is bound to it. */
  threadId: string;
  /** The person the grants belong to (the edge handler's `principal`). Default: none. */
  principal?: string | undefined;
}

/** A grant a decision asked for that is not a valid grant (an over-long label, say), and why. */
export interface RefusedGrant {
  grant: GrantInput;
  reason: string;
}

/**
 * The grants a run's decisions create: one per approval wider than `once` (a `thread` one bound to
 * `threadId`), each checked against the grant schema. The in-page run and the edge handler both
 * take them from here, and record them in their store or hand them to the client.
 * @param o - See {@link GrantsFromDecisionsOptions}.
 * @returns Valid grant inputs, without `grantedAt` (the store or the caller stamps it), and the
 *   ones refused with their reason.
 */
export function grantsFromDecisions(o: GrantsFromDecisionsOptions): { grants: GrantInput[]; refused: RefusedGrant[] } {
  const grants: GrantInput[] = [];
  const refused: RefusedGrant[] = [];
  for (const d of o.decisions) {
    if (d.decision !== "approved" || d.scope === "once") continue;
    const grant: GrantInput = { tool: d.tool, scope: d.scope };
    if (d.subject.key !== null) {
      grant.subjectKey = d.subject.key;
      grant.subjectLabel = d.subject.label;
    }
    if (d.scope === "thread") grant.threadId = o.threadId;
    if (o.principal !== undefined) grant.principal = o.principal;
    const parsed = parseGrant({ ...grant, grantedAt: Date.now() });
    if (parsed.ok) grants.push(grant);
    else refused.push({ grant, reason: parsed.reason });
  }
  return { grants, refused };
}

/** What an approval was given for: the tool, the call and a hash of its input. */
export function callFingerprint(tool: string, toolUseId: string, input: unknown): string {
  return `${tool}\u0000${toolUseId}\u0000${jsonHash(input)}`;
}

/**
 * Whether a gate already approved this call for other arguments: then a later edit (the
 * tool's own approval, with edited arguments) would run something nobody approved.
 */
export function approvedForOtherInput(agent: Agent, tool: string, toolUseId: string, input: unknown): boolean {
  const raw = agent.state.get(CONSUMED_APPROVALS_KEY);
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return false;
  const mine = callFingerprint(tool, toolUseId, input);
  return Object.entries(raw).some(
    ([id, fingerprint]) => isCallInterrupt(id, toolUseId, ["toolHook"]) && fingerprint !== mine,
  );
}

/**
 * Records that an approval was used for one call (tool, toolUseId, input hash).
 * @returns `false` when the same approval was already used for a different call: it must not run.
 */
export function recordFingerprint(
  agent: Agent,
  interruptId: string,
  tool: string,
  toolUseId: string,
  input: unknown,
): boolean {
  const fingerprint = callFingerprint(tool, toolUseId, input);
  const raw = agent.state.get(CONSUMED_APPROVALS_KEY);
  const record: JsonObject = raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
  const seen: JsonValue | undefined = Object.hasOwn(record, interruptId) ? record[interruptId] : undefined;
  if (seen !== undefined) return seen === fingerprint;
  record[interruptId] = fingerprint;
  const keys = Object.keys(record);
  // Bounded: the oldest entries go first (insertion order).
  for (let i = 0; i < keys.length - CONSUMED_LIMIT; i++) delete record[keys[i] as string];
  agent.state.set(CONSUMED_APPROVALS_KEY, record);
  return true;
}
