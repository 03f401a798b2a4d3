/**
 * The AI SDK gate's use of a grant store: which grant covers a call (by the rules every gate shares)
 * and the grant a person's approval makes (by the function both approval hooks use).
 *
 * @module
 */
import type { ToolApprovalStatus } from "ai";
import type { RunAudit } from "../agent/audit/audit-record.js";
import { coveringGrant, type CoveredCall } from "../hooks/approval/decision.js";
import { coverNow, findGrant, type CoversNow } from "../grants/find.js";
import { grantId, type Grant } from "../grants/grant.js";
import type { GrantStore } from "../grants/store.js";
import type { ApprovalScope } from "../hooks/approval/request.js";
import { grantsFromDecisions } from "../hooks/approval/run.js";
import type { CallSubject } from "../hooks/approval/subject.js";
import type { Logger } from "../logger.js";

/** Whose call, where, and when. */
export interface GrantContext {
  store: GrantStore;
  threadId: string;
  principal: string | undefined;
}

/**
 * The grant in the store that covers a call: same tool and subject, a `thread` grant in this thread,
 * this person's, no wider than `remember` (see `coveringGrant`).
 * @param store - The store.
 * @param call - The tool, its subject key (`undefined`: the whole tool), the rule's `remember`, the thread, the
 *   person, epoch ms.
 * @returns The grant, or `undefined`: ask; at once from a store that answers so (the memory store), else a promise.
 */
export function storedCover(
  store: GrantStore,
  call: CoveredCall & { threadId: string },
): Grant | undefined | Promise<Grant | undefined> {
  const { threadId } = call;
  // The memory store answers at once with a copy of the one grant (the same grant grantsFor's list gives).
  const atOnce = (store as Partial<CoversNow>)[coverNow];
  if (typeof atOnce === "function") {
    let found: Grant | undefined | null;
    const grant = coveringGrant((q) => (found = atOnce.call(store, threadId, q)) ?? undefined, call);
    if (found !== null) return grant as Grant | undefined;
  }
  // A native promise whatever the store answers with (a thenable of one's own): the gate tells a promise from a
  // grant by it, and a thenable taken for a grant would approve the call.
  return Promise.resolve(store.grantsFor(threadId, { now: call.now, principal: call.principal })).then((grants) =>
    coveringGrant((q) => findGrant(grants, q), call),
  );
}

/**
 * The answer when a grant covers the call: approved, the reason naming the grant; its use recorded in the
 * trail first when there is one (a write that fails fails the step).
 * @param audit - The thread's trail (`undefined`: nothing is written).
 * @param principal - Whose conversation it is.
 * @param toolCall - The call.
 * @param grant - The covering grant.
 * @returns The answer; a promise only when the trail writes.
 */
export function approvedByGrant(
  audit: RunAudit | undefined,
  principal: string | undefined,
  toolCall: { toolName: string; toolCallId: string },
  grant: Grant,
): ToolApprovalStatus | Promise<ToolApprovalStatus> {
  const id = grantId(grant);
  const approved: ToolApprovalStatus = { type: "approved", reason: grantReason(grant, id) };
  if (!audit) return approved;
  const used = { tool: toolCall.toolName, toolUseId: toolCall.toolCallId, grantId: id, source: "grant" as const };
  return audit.append({ kind: "grant_use", ...used, principal: principal ?? null }).then(() => approved);
}

/**
 * Saves the grant an approval wider than `once` makes. A grant that cannot be saved is logged, never
 * fatal: the call was approved and runs; the decision is simply not remembered.
 * @param c - The store, thread and person.
 * @param approval - The tool, the call, its subject and the scope granted.
 * @param log - Where failures go.
 */
export async function saveApprovalGrant(
  c: GrantContext,
  approval: { tool: string; toolUseId: string; subject: CallSubject; scope: ApprovalScope },
  log: Logger,
): Promise<void> {
  const { grants, refused } = grantsFromDecisions({
    decisions: [{ decision: "approved", ...approval }],
    threadId: c.threadId,
    principal: c.principal,
  });
  const failed = (grant: { tool: string; scope: string }, error: string) =>
    log.error("kaboo: could not record a grant", { tool: grant.tool, scope: grant.scope, error });
  for (const r of refused) failed(r.grant, r.reason);
  for (const grant of grants) {
    try {
      await c.store.grant(grant);
    } catch (error) {
      failed(grant, String(error));
    }
  }
}

/**
 * The reason an approval by grant carries: which grant.
 * @param grant - The covering grant.
 * @param id - Its id (`grantId`), when already known.
 */
export function grantReason(grant: Grant, id: string = grantId(grant)): string {
  const what = grant.subjectLabel ?? `calls to "${grant.tool}"`;
  const where = grant.scope === "thread" ? "in this conversation" : "from now on";
  return `Approved by a remembered grant: ${what}, ${where} (grant ${id}).`;
}
