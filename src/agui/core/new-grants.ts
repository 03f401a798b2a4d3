/**
 * The grants a run's `thread`/`always` answers created, saved in the host's grant store: the one
 * path for the in-page run and the edge handler, with one error policy. A grant that cannot be
 * saved is reported — logged, and a CUSTOM {@link GRANT_NOT_SAVED_EVENT} the front end can show —
 * and never turned into a failure of the run: by then the approved call has run (money may have
 * moved), and the person must not read "failed" for it. The decision is simply not remembered:
 * the next such call asks again.
 *
 * @module
 */
import type { CustomEvent } from "@ag-ui/core";
import type { InvocationState } from "../../agent/events.js";
import { describe } from "../../errors.js";
import type { GrantInput, GrantStore } from "../../grants/store.js";
import { approvalDecisions, grantsFromDecisions } from "../../hooks/approval/run.js";
import type { Logger } from "../../logger.js";
import { customEvent } from "../run-events.js";

/**
 * Name of the CUSTOM event sent for each remembered decision that could not be saved. Its value:
 * `{ tool, scope, subjectLabel?, threadId?, reason }`.
 */
export const GRANT_NOT_SAVED_EVENT = "kaboo_grant_not_saved";

/** Options of {@link saveNewGrants} and {@link newGrants}. */
export interface SaveNewGrantsOptions {
  /** The run's state (its decisions). */
  invocationState: InvocationState;
  threadId: string;
  /** The person the grants belong to. Default: none. */
  principal?: string | undefined;
  grantStore: GrantStore;
  log: Logger;
  /**
   * Only the decisions from this index on (a checkpoint saves what was decided since the last one).
   * Default 0: all of the run's decisions.
   */
  from?: number | undefined;
  /**
   * Whether a grant that is refused or cannot be saved is reported (logged, and the CUSTOM event
   * yielded). Default `true`. A checkpoint saves quietly: what fails then is tried again, and
   * reported, when the run ends.
   */
  report?: boolean | undefined;
}

/**
 * The grants a run's `thread`/`always` decisions created (from `o.from` on), naming its person, and
 * a CUSTOM {@link GRANT_NOT_SAVED_EVENT} for each one the rule refused (a scope wider than it allows).
 * @param o - The run's state, thread, principal and logger, and where to start.
 * @returns The grants to remember, and the events of the refused ones.
 */
export function newGrants(o: Omit<SaveNewGrantsOptions, "grantStore">): {
  grants: GrantInput[];
  notSaved: CustomEvent[];
} {
  const { grants, refused } = grantsFromDecisions({
    decisions: approvalDecisions(o.invocationState).slice(o.from ?? 0),
    threadId: o.threadId,
    principal: o.principal,
  });
  const notSaved = o.report === false ? [] : refused.map((r) => grantNotSaved(r.grant, r.reason, o.log));
  return { grants, notSaved };
}

/**
 * Saves the grants this run's decisions created: the one place grants are saved, in the page and at
 * the edge, during the run (checkpoints) and at its end.
 * @param o - See {@link SaveNewGrantsOptions}.
 * @returns One CUSTOM {@link GRANT_NOT_SAVED_EVENT} per grant that was refused or could not be saved
 *   (none when `report` is false).
 */
export async function* saveNewGrants(o: SaveNewGrantsOptions): AsyncGenerator<CustomEvent> {
  const { grants, notSaved } = newGrants(o);
  yield* notSaved;
  for (const grant of grants) {
    try {
      await o.grantStore.grant(grant);
    } catch (error) {
      if (o.report !== false) yield grantNotSaved(grant, describe(error), o.log);
    }
  }
}

/**
 * Reports a remembered decision that was not saved: logged, and the event the front end can show.
 * @param grant - The grant that was not saved.
 * @param reason - Why.
 * @param log - Where it is logged (as an error).
 * @returns The CUSTOM {@link GRANT_NOT_SAVED_EVENT}.
 */
export function grantNotSaved(grant: GrantInput, reason: string, log: Logger): CustomEvent {
  log.error("kaboo: could not record a grant", { tool: grant.tool, scope: grant.scope, error: reason });
  return customEvent(GRANT_NOT_SAVED_EVENT, {
    tool: grant.tool,
    scope: grant.scope,
    ...(grant.subjectLabel !== undefined ? { subjectLabel: grant.subjectLabel } : {}),
    ...(grant.threadId !== undefined ? { threadId: grant.threadId } : {}),
    reason,
  });
}
