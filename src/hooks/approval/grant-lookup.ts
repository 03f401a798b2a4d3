/**
 * The approval gate's view of remembered grants: `forwardedProps.kaboo_grants`,
 * validated (and verified when a secret is set) once per run.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import { findVerifiedGrant } from "../../grants/accept.js";
import { findGrant, indexGrants, type GrantIndex, type GrantQuery } from "../../grants/find.js";
import { grantRefusalSummary, parseGrants, type Grant } from "../../grants/grant.js";
import type { GrantSecret } from "../../grants/signing.js";
import { grantsIn } from "../../agent/run-context.js";
import type { Logger } from "../../logger.js";

/** Parses, verifies and indexes a run's grants lazily, once per invocation. */
export class GrantLookup {
  readonly #secret: GrantSecret | undefined;
  readonly #log: Logger;
  // Keyed by the run's invocationState, so concurrent runs never share grants.
  readonly #cache = new WeakMap<InvocationState, Promise<GrantIndex>>();

  constructor(secret: GrantSecret | undefined, log: Logger) {
    this.#secret = secret;
    this.#log = log;
  }

  /** Whether a remembered grant covers the call. */
  async covers(invocationState: InvocationState, query: GrantQuery): Promise<boolean> {
    return (await this.find(invocationState, query)) !== undefined;
  }

  /** The remembered grant that covers the call (verified when there is a secret), if any. */
  async find(invocationState: InvocationState, query: GrantQuery): Promise<Grant | undefined> {
    let index = this.#cache.get(invocationState);
    if (!index) {
      index = this.#load(invocationState);
      this.#cache.set(invocationState, index);
    }
    if (this.#secret === undefined) return findGrant(await index, query);
    // Verify only the grants that would cover this call: one HMAC each, not one per grant of the run.
    const { grant, rejected } = await findVerifiedGrant(await index, query, this.#secret);
    const summary = grantRefusalSummary(rejected);
    if (summary) this.#log.warn("unverified grants ignored", { summary, tool: query.tool });
    return grant;
  }

  async #load(invocationState: InvocationState): Promise<GrantIndex> {
    const sent = grantsIn(invocationState);
    if (!sent.sent) return indexGrants([]);
    const { grants, rejected, ignored } = parseGrants(sent.value);
    // One line for the whole list: a hostile list must not buy a log line per entry.
    const summary = grantRefusalSummary(rejected, ignored);
    if (summary) this.#log.warn("malformed grants ignored", { summary });
    return indexGrants(grants);
  }
}
