/**
 * The AI SDK gate's use of a grant store: which grant covers a call (by the rules every gate shares)
 * and the grant a person's approval makes (by the function both approval hooks use).
 *
 * @module
 */
import { coveringGrant } from "../hooks/approval/decision.js";
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
 * @param c - The store, thread and person.
 * @param call - The tool, its subject key (`null`: the whole tool), the rule's `remember`, epoch ms.
 * @returns The grant, or `undefined`: ask; at once from a store that answers so (the memory store), else a promise.
 */
export function storedCover(
  c: GrantContext,
  call: { tool: string; subjectKey: string | null; remember: ApprovalScope; now: number },
): Grant | undefined | Promise<Grant | undefined> {
  const { threadId, principal } = c;
  // Written out: a spread followed by more keys is V8's slow way to build an object.
  const { tool, remember, now: at } = call;
  const query = { tool, subjectKey: call.subjectKey ?? undefined, remember, now: at, threadId, principal };
  // The memory store answers at once with a copy of the one grant (the same grant grantsFor's list gives).
  const atOnce = (c.store as Partial<CoversNow>)[coverNow];
  if (typeof atOnce === "function") {
    let found: Grant | undefined | null;
    const grant = coveringGrant((q) => (found = atOnce.call(c.store, threadId, q)) ?? undefined, query);
    if (found !== null) return grant as Grant | undefined;
  }
  return c.store
    .grantsFor(threadId, { now: call.now, principal })
    .then((grants) => coveringGrant((q) => findGrant(grants, q), query));
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
