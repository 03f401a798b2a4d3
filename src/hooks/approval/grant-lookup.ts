/**
 * The approval gate's view of remembered grants: `forwardedProps.kaboo_grants`,
 * validated (and verified when a secret is set) once per run. Matching (`grants/find.ts`) loads
 * on the first gated call of a run that sent grants, signature checks (`grants/signing.ts`) on the
 * first gated call of a gate with a secret: a gate without a secret whose runs send no grants
 * fetches neither.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import type { GrantIndex, GrantQuery } from "../../grants/find.js";
import { grantRefusalSummary, parseGrants, type Grant } from "../../grants/grant.js";
import type { GrantSecret } from "../../grants/signing.js";
import { grantsIn } from "../../agent/run-context.js";
import type { Logger } from "../../logger.js";

/** Parses, verifies and indexes a run's grants lazily, once per invocation. */
export class GrantLookup {
  readonly #secret: GrantSecret | undefined;
  readonly #log: Logger;
  // Keyed by the run's invocationState, so concurrent runs never share grants.
  readonly #cache = new WeakMap<InvocationState, Promise<GrantIndex | undefined>>();

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
    const grants = await index;
    if (this.#secret === undefined) {
      if (grants === undefined) return undefined;
      const { findGrant } = await import("../../grants/find.js");
      return findGrant(grants, query);
    }
    // Verify only the grants that would cover this call: one HMAC each, not one per grant of the run.
    // With no grants too, so an unusable secret is refused whether or not this run sent any.
    const { findVerifiedGrant } = await import("../../grants/signing.js");
    const { grant, rejected } = await findVerifiedGrant(grants ?? [], query, this.#secret);
    const summary = grantRefusalSummary(rejected);
    if (summary) this.#log.warn("unverified grants ignored", { summary, tool: query.tool });
    return grant;
  }

  /** The run's grants, indexed; `undefined` when it sent none that parse. */
  async #load(invocationState: InvocationState): Promise<GrantIndex | undefined> {
    const sent = grantsIn(invocationState);
    if (!sent.sent) return undefined;
    const { grants, rejected, ignored } = parseGrants(sent.value);
    // One line for the whole list: a hostile list must not buy a log line per entry.
    const summary = grantRefusalSummary(rejected, ignored);
    if (summary) this.#log.warn("malformed grants ignored", { summary });
    if (grants.length === 0) return undefined;
    const { indexGrants } = await import("../../grants/find.js");
    return indexGrants(grants);
  }
}
