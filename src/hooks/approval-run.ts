/**
 * Per-run bookkeeping of the approval hooks. Everything lives in the run's
 * `invocationState` (under symbols, so it never leaks into JSON) or in the
 * agent's own state, never in module variables.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { InvocationState } from "../agent/events.js";
import type { JsonObject, JsonValue } from "../agent/messages.js";
import { GRANTS_PROP, TOOL_APPROVAL_KEY, jsonHash, type ApprovalScope, type Decision } from "./approval.js";
import { FORWARDED_PROPS_KEY } from "./forwarded-props-hook.js";
import { getSessionExchange, PRINCIPAL_KEY, THREAD_ID_KEY } from "./session-exchange.js";

/** A decision taken in this run, for the host to remember (`thread`/`always`) or audit. */
export interface ApprovalDecision {
  decision: Decision;
  tool: string;
  toolUseId: string;
  subject: { key: string | null; label: string };
  /** The scope granted, clamped to what was offered. */
  scope: ApprovalScope;
}

const DECISIONS = Symbol("kaboo.approvalDecisions");
const RUN_GRANTS = Symbol("kaboo.runGrants");
/** Agent-state key of the consumed-approval record (interrupt id → call fingerprint). */
export const CONSUMED_APPROVALS_KEY = "kaboo_consumed_approvals";
const CONSUMED_LIMIT = 500;

type Bag = InvocationState & {
  [DECISIONS]?: ApprovalDecision[];
  [RUN_GRANTS]?: { tool: string; subjectKey: string | undefined }[];
};

/** The interrupt name of an approval request of this agent. */
export function approvalName(agentName: string): string {
  return agentName ? `${agentName}:${TOOL_APPROVAL_KEY}` : TOOL_APPROVAL_KEY;
}

/** The run's forwarded props, when they are a JSON object. */
export function forwardedPropsOf(invocationState: InvocationState): Record<string, unknown> | undefined {
  const props = invocationState[FORWARDED_PROPS_KEY];
  return typeof props === "object" && props !== null && !Array.isArray(props) ? (props as Record<string, unknown>) : undefined;
}

/** The run's thread id, when it has one. */
export function threadIdOf(invocationState: InvocationState): string | undefined {
  const id = invocationState[THREAD_ID_KEY];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** The person the run serves (set by the edge handler's `principal`), when there is one. */
export function principalOf(invocationState: InvocationState): string | undefined {
  const id = invocationState[PRINCIPAL_KEY];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * Whether decisions may be remembered beyond this call: the host sends its grants
 * (`forwardedProps.kaboo_grants` present, even empty) *and* the run publishes its open requests
 * (a session exchange that publishes approvals).
 */
export function remembers(invocationState: InvocationState): boolean {
  const props = forwardedPropsOf(invocationState);
  return !!props && Object.hasOwn(props, GRANTS_PROP) && getSessionExchange(invocationState)?.publishesApprovals === true;
}

/** Decisions taken so far in this run (the AG-UI adapter stores `thread`/`always` ones in its GrantStore). */
export function approvalDecisions(invocationState: InvocationState): readonly ApprovalDecision[] {
  return (invocationState as Bag)[DECISIONS] ?? [];
}

/** Records a decision; an approval wider than `once` also covers later calls of this run. */
export function recordDecision(invocationState: InvocationState, decision: ApprovalDecision): void {
  const bag = invocationState as Bag;
  (bag[DECISIONS] ??= []).push(decision);
  if (decision.decision === "approved" && decision.scope !== "once") {
    (bag[RUN_GRANTS] ??= []).push({ tool: decision.tool, subjectKey: decision.subject.key ?? undefined });
  }
}

/** Approvals wider than `once` given earlier in this run. */
export function runGrants(invocationState: InvocationState): readonly { tool: string; subjectKey: string | undefined }[] {
  return (invocationState as Bag)[RUN_GRANTS] ?? [];
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
  const prefix = `hook:beforeToolCall:${toolUseId}:`;
  return Object.entries(raw).some(([id, fingerprint]) => id.startsWith(prefix) && fingerprint !== mine);
}

/**
 * Records that an approval was used for one call (tool, toolUseId, input hash).
 * @returns `false` when the same approval was already used for a different call: it must not run.
 */
export function recordFingerprint(agent: Agent, interruptId: string, tool: string, toolUseId: string, input: unknown): boolean {
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
