/**
 * Who a request is for, asked of the host before anything of the request is read. The lookup fails
 * closed: only a non-empty string names a person; `undefined` (a `session?.user` with no session),
 * `null`, `""`, any other value and a throw all refuse the request, so a missing login can never
 * run as an anonymous thread that the first real person to resume it would then own.
 *
 * @module
 */
import { describe, UnauthenticatedError } from "../../../errors.js";
import type { Logger } from "../../../logger.js";

/** The host's lookup: a verified user id from the request (its session cookie, auth header). */
export type PrincipalLookup = (request: Request) => string | null | undefined | Promise<string | null | undefined>;

/** What {@link resolvePrincipal} found: the person, or in plain words what is missing. */
export type ResolvedPrincipal = { principal: string | undefined } | { missing: string };

const ASK = "This endpoint needs to know who the request is for";

function missing(value: unknown): string | undefined {
  if (typeof value === "string")
    return value === "" ? `${ASK}, and the sign-in check gave an empty user id.` : undefined;
  if (value === undefined || value === null)
    return `${ASK}, and no signed-in user was found for it. Sign in (or send the credentials this endpoint expects) and try again.`;
  return `${ASK}, and the sign-in check gave a ${Array.isArray(value) ? "list" : typeof value} instead of a user id.`;
}

/**
 * Asks the host's lookup who the request is for.
 *
 * @param lookup - The handler's `principal` option; absent: requests are anonymous by design.
 * @param request - The incoming request (not yet read).
 * @param log - Where a failing lookup is reported (its error stays on the server).
 * @returns `{ principal }` (`undefined` only when there is no lookup), or `{ missing }`: answer 401 with it.
 */
export async function resolvePrincipal(
  lookup: PrincipalLookup | undefined,
  request: Request,
  log: Logger,
): Promise<ResolvedPrincipal> {
  if (!lookup) return { principal: undefined };
  let value: unknown;
  try {
    value = await lookup(request);
  } catch (error) {
    // The host's own words for the client; anything else a lookup throws may name internals.
    if (error instanceof UnauthenticatedError) return { missing: `${ASK}: ${error.message.slice(0, 300)}` };
    log.warn("kaboo: the principal lookup failed", { error: describe(error) });
    return { missing: `${ASK}, and the sign-in check could not tell (it failed). Sign in and try again.` };
  }
  const why = missing(value);
  if (why === undefined) return { principal: value as string };
  log.warn("kaboo: the request has no principal", { got: value === null ? "null" : typeof value });
  return { missing: why };
}
