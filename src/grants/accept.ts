/**
 * The one-call intake of `forwardedProps.kaboo_grants`: validate every entry, then (with a secret)
 * keep only grants whose signature verifies.
 *
 * @module
 */
import { parseGrants } from "./grant.js";
import type { ParsedGrants } from "./grant.js";
import { filterVerified } from "./signing.js";
import type { GrantSecret } from "./signing.js";

/** Options of {@link acceptGrants}. */
export interface AcceptGrantsOptions {
  /** When set, only grants signed with it are accepted. Default: none (signatures are not checked). */
  secret?: GrantSecret | undefined;
  /** Most entries read; the rest are ignored and counted. Default 256 (`DEFAULT_MAX_GRANTS`). */
  maxGrants?: number | undefined;
}

/**
 * Turn untrusted `kaboo_grants` into grants the gate may use. Malformed entries and,
 * with a secret, unsigned, forged or altered grants end up in `rejected` (report
 * them), never in `grants`.
 *
 * @param value - The untrusted value (`undefined`/`null`: no grants).
 * @param options - `secret` (default: none), `maxGrants` (default 256: later entries are not read).
 * @returns Usable grants in input order, every rejected entry with its reason, and how many
 *   entries were not read.
 * @throws {UserError} When `secret` is unusable (empty text, a key that cannot verify).
 * @example
 * ```ts
 * const { grants, rejected, ignored } = await acceptGrants(forwardedProps.kaboo_grants, { secret });
 * const summary = grantRefusalSummary(rejected, ignored);
 * if (summary) console.warn(summary);
 * const grant = findGrant(grants, { tool, subjectKey, threadId });
 * ```
 */
export async function acceptGrants(value: unknown, options: AcceptGrantsOptions = {}): Promise<ParsedGrants> {
  const parsed = parseGrants(value, { maxGrants: options.maxGrants });
  if (options.secret === undefined) return parsed;
  const { accepted, rejected } = await filterVerified(parsed.grants, options.secret);
  return {
    grants: accepted,
    rejected: [...parsed.rejected, ...rejected.map(({ grant, reason }) => ({ value: grant, reason }))],
    ignored: parsed.ignored,
  };
}
