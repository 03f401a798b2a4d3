/**
 * Grants at the edge: what the handler lets into a run (`forwardedProps.kaboo_grants`) and what it
 * does with the `thread`/`always` answers a run produced. Grants are a person's: with a
 * `principal`, only that person's grants go in, and new grants name them.
 *
 * @module
 */
import type { BaseEvent, RunAgentInput } from "@ag-ui/core";
import type { InvocationState } from "../../agent/events.js";
import { describe } from "../../errors.js";
import { acceptGrants } from "../../grants/accept.js";
import { grantRefusalSummary, parseGrant, parseGrants, type Grant } from "../../grants/grant.js";
import { signGrant, type GrantSecret } from "../../grants/signing.js";
import type { GrantStore } from "../../grants/store.js";
import { forwardedPropsWithGrants, GRANTS_PROP } from "../../agent/run-context.js";
import { approvalDecisions, decisionGrants as grantsOfDecisions } from "../../hooks/approval/run.js";
import type { Logger } from "../../logger.js";
import { customEvent } from "../run-events.js";

/** Name of the CUSTOM event that hands the client the grants this run created (when the handler has no store). */
export const GRANTS_EVENT = "kaboo_grants";

/** What the grant steps of the handler need. */
export interface EdgeGrantOptions {
  secret?: GrantSecret | undefined;
  grantStore?: GrantStore | undefined;
  /** Let unsigned client grants in when there is no secret. */
  acceptUnsignedGrants?: boolean | undefined;
  /** Most client grants read per run (the rest ignored, with one warning). Default 256. */
  maxGrants?: number | undefined;
  /** Whose run it is. */
  principal: string | undefined;
  log: Logger;
}

/**
 * The run's `forwardedProps` with only the grants the gate may trust: the server's own grants of
 * this person (with a grant store); otherwise the client's, verified under the secret and of this
 * person — or, with no secret, none unless the host opted in to unsigned grants.
 *
 * @param input - The run's input.
 * @param o - Secret, grant store, opt-in, principal, logger.
 * @returns The forwarded props to run with.
 */
export async function trustedGrants(input: RunAgentInput, o: EdgeGrantOptions): Promise<Record<string, unknown>> {
  const props = forwardedPropsWithGrants(input.forwardedProps);
  const { secret, grantStore, principal, log } = o;
  if (grantStore) {
    const stored = await grantStore.grantsFor(input.threadId, { principal });
    // The store is the server's own: its grants are signed here so a gate with the secret accepts them.
    return forwardedPropsWithGrants(
      props,
      secret === undefined ? stored : await Promise.all(stored.map((g) => signGrant(g, secret))),
    );
  }
  if (!Object.hasOwn(props, GRANTS_PROP)) return props;
  let grants: Grant[];
  const sent = props[GRANTS_PROP];
  if (secret !== undefined || o.acceptUnsignedGrants) {
    // Checked here too, so a gate built without the secret never sees a forged grant.
    const read =
      secret !== undefined
        ? await acceptGrants(sent, { secret, maxGrants: o.maxGrants })
        : parseGrants(sent, { maxGrants: o.maxGrants });
    // One line for the whole list, whatever its length: a log line per entry is a cost a client could buy.
    const summary = grantRefusalSummary(read.rejected, read.ignored, o.maxGrants);
    if (summary) log.warn("kaboo: client grants ignored", { summary, threadId: input.threadId });
    grants = read.grants;
  } else {
    // Anyone can write an unsigned grant: at the edge it would skip every question.
    if (Array.isArray(sent) && sent.length > 0)
      log.warn("kaboo: unsigned client grants ignored (set a secret, or acceptUnsignedGrants)", { threadId: input.threadId });
    grants = [];
  }
  const mine = grants.filter((g) => g.principal === principal);
  if (mine.length < grants.length) log.warn("kaboo: grants of another principal ignored", { threadId: input.threadId });
  // Kept even when empty: its presence is how the client says it can remember decisions.
  return forwardedPropsWithGrants(props, mine);
}

/**
 * The grants this run's `thread`/`always` approvals created, naming the run's person.
 *
 * @param invocationState - The run's state (its decisions).
 * @param threadId - The run's thread.
 * @param o - Principal and logger.
 * @returns Validated grants.
 */
export function decisionGrants(invocationState: InvocationState, threadId: string, o: EdgeGrantOptions): Grant[] {
  const out: Grant[] = [];
  const now = Date.now();
  for (const candidate of grantsOfDecisions(approvalDecisions(invocationState), threadId)) {
    const parsed = parseGrant({ ...candidate, grantedAt: now, ...(o.principal !== undefined ? { principal: o.principal } : {}) });
    if (parsed.ok) out.push(parsed.grant);
    else o.log.warn("kaboo: an approval could not become a grant", { tool: candidate.tool, reason: parsed.reason });
  }
  return out;
}

/**
 * Records new grants in the store, or yields them (signed under a secret) for the client to keep.
 *
 * @param grants - From {@link decisionGrants}.
 * @param o - Secret, grant store, logger.
 * @returns A CUSTOM `kaboo_grants` event when there is no store.
 */
export async function* handOutGrants(grants: Grant[], o: EdgeGrantOptions): AsyncGenerator<BaseEvent> {
  if (!grants.length) return;
  const { grantStore, secret } = o;
  if (!grantStore) {
    const out = secret === undefined ? grants : await Promise.all(grants.map((g) => signGrant(g, secret)));
    yield customEvent(GRANTS_EVENT, { grants: out });
    return;
  }
  for (const grant of grants) {
    try {
      await grantStore.grant(grant);
    } catch (error) {
      o.log.error("kaboo: could not record a grant", { tool: grant.tool, error: describe(error) });
    }
  }
}
