/**
 * CORS headers of the edge handler.
 *
 * @module
 */
import type { AguiCorsOptions, HandlerSettings } from "../options.js";

/**
 * The CORS headers of a response to `request`.
 *
 * @param cors - The handler's `cors` option.
 * @param request - The incoming request (its `Origin`).
 * @returns Headers to add (none when CORS is off).
 */
export function corsHeaders(cors: HandlerSettings["cors"], request: Request): Record<string, string> {
  if (!cors) return {};
  const allowed = cors === true ? "*" : (cors.origin ?? "*");
  if (typeof allowed === "string")
    return allowed === "*"
      ? { "access-control-allow-origin": "*" }
      : { "access-control-allow-origin": allowed, vary: "Origin" };
  const origin = request.headers.get("origin");
  return origin !== null && allowed.includes(origin)
    ? { "access-control-allow-origin": origin, vary: "Origin" }
    : { vary: "Origin" };
}

/**
 * The headers of a preflight answer.
 *
 * @param cors - The handler's `cors` option (on).
 * @returns The allow-methods, allow-headers and max-age headers.
 */
export function preflightHeaders(cors: true | AguiCorsOptions): Record<string, string> {
  const o = cors === true ? {} : cors;
  return {
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": (o.headers ?? ["content-type", "accept", "authorization"]).join(", "),
    "access-control-max-age": String(o.maxAge ?? 86_400),
  };
}

/**
 * Whether a browser sent this request for a page of another site (`Sec-Fetch-Site: cross-site`, or
 * `same-site`: a sibling subdomain) whose origin the `cors` option does not allow. Such a request
 * carries the person's cookies without a preflight when it is a form post or a `text/plain` fetch,
 * so a host whose `principal` reads a session cookie would act for the person on another site's
 * behalf (an approver's browser approving a four-eyes request, a grant revoked). Requests from
 * outside a browser, and from browsers that send no Fetch Metadata, carry no such header.
 *
 * @param cors - The handler's `cors` option (none: same-origin callers only; `true`: any origin).
 * @param request - The incoming request.
 * @returns `true` when the request must be refused.
 */
export function crossSiteRefused(cors: HandlerSettings["cors"] | undefined, request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== "cross-site" && site !== "same-site") return false;
  if (!cors) return true;
  const allowed = cors === true ? "*" : (cors.origin ?? "*");
  if (allowed === "*") return false;
  const origin = request.headers.get("origin");
  return origin === null || (typeof allowed === "string" ? origin !== allowed : !allowed.includes(origin));
}
