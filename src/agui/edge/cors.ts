/**
 * CORS headers of the edge handler.
 *
 * @module
 */
import type { AguiCorsOptions, AguiHandlerOptions } from "./options.js";

/**
 * The CORS headers of a response to `request`.
 *
 * @param cors - The handler's `cors` option.
 * @param request - The incoming request (its `Origin`).
 * @returns Headers to add (none when CORS is off).
 */
export function corsHeaders(cors: AguiHandlerOptions["cors"], request: Request): Record<string, string> {
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
