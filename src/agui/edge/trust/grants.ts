/**
 * Grants at the edge: what the handler lets into a run (`forwardedProps.kaboo_grants`) and what it
 * does with the `thread`/`always` answers a run produced. Grants are a person's: with a
 * `principal`, only that person's grants go in, and new grants name them.
 *
 * @module
 */
import type { CustomEvent, RunAgentInput } from "@ag-ui/core";
import type { InvocationState } from "../../../agent/events.js";
import { acceptGrants } from "../../../grants/accept.js";
import { grantRefusalSummary, parseGrants, type Grant } from "../../../grants/grant.js";
import { signGrant, type GrantSecret } from "../../../grants/signing.js";
import type { GrantStore } from "../../../grants/store.js";
import { forwardedPropsWithGrants, GRANTS_PROP } from "../../../agent/run-context.js";
import { newGrants, saveNewGrants } from "../../core/new-grants.js";
import type { Logger } from "../../../logger.js";
import { customEvent } from "../../run-events.js";

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
  // The handler's own parse of the body: written in place, never copied.
  const inPlace = { inPlace: true };
  const props = forwardedPropsWithGrants(input.forwardedProps, undefined, inPlace);
  const { secret, grantStore, principal, log } = o;
  if (grantStore) {
    const stored = await grantStore.grantsFor(input.threadId, { principal });
    // The store is the server's own: its grants are signed here so a gate with the secret accepts them.
    return forwardedPropsWithGrants(
      props,
      secret === undefined ? stored : await Promise.all(stored.map((g) => signGrant(g, secret))),
      inPlace,
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
      log.warn("kaboo: unsigned client grants ignored (set a secret, or acceptUnsignedGrants)", {
        threadId: input.threadId,
      });
    grants = [];
  }
  const mine = grants.filter((g) => g.principal === principal);
  if (mine.length < grants.length) log.warn("kaboo: grants of another principal ignored", { threadId: input.threadId });
  // Kept even when empty: its presence is how the client says it can remember decisions.
  return forwardedPropsWithGrants(props, mine, inPlace);
}

/**
 * The grants this run's `thread`/`always` approvals created, naming the run's person: saved in the
 * grant store (see `saveNewGrants` for the error policy), or without one handed to the client
 * (signed under a secret) in a CUSTOM `kaboo_grants` event.
 *
 * @param invocationState - The run's state (its decisions).
 * @param threadId - The run's thread.
 * @param o - Secret, grant store, principal, logger.
 * @returns The CUSTOM events: `kaboo_grants` (no store), `kaboo_grant_not_saved` for each grant not saved.
 */
export async function* handOutGrants(
  invocationState: InvocationState,
  threadId: string,
  o: EdgeGrantOptions,
): AsyncGenerator<CustomEvent> {
  const { grantStore, secret, principal, log } = o;
  if (grantStore) return yield* saveNewGrants({ invocationState, threadId, principal, grantStore, log });
  const { grants, notSaved } = newGrants({ invocationState, threadId, principal, log });
  yield* notSaved;
  if (!grants.length) return;
  const now = Date.now();
  const stamped: Grant[] = grants.map((g) => ({ ...g, grantedAt: now }));
  const out = secret === undefined ? stamped : await Promise.all(stamped.map((g) => signGrant(g, secret)));
  yield customEvent(GRANTS_EVENT, { grants: out });
}
