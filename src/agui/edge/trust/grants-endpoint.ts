/**
 * The grants endpoint: what a page's grants panel calls to list and revoke the signed-in person's
 * grants in a server grant store. A person sees and revokes only their own grants.
 *
 * @module
 */
import { describe } from "../../../errors.js";
import { grantId, type Grant } from "../../../grants/grant.js";
import type { GrantStore } from "../../../grants/store.js";
import { defaultLogger, type Logger } from "../../../logger.js";
import { positiveIntegerOption } from "../../../options.js";
import { crossSiteRefused } from "../request/cors.js";
import { readBodyWithin } from "../request/limits.js";
import { resolvePrincipal, type PrincipalLookup } from "../request/principal.js";

/** A grant as the endpoint lists it: the grant and its id (what a revoke names). */
export interface ListedGrant extends Grant {
  id: string;
}

/** Options of {@link createGrantsHandler}. */
export interface GrantsHandlerOptions {
  /** The server grant store (the same as the AG-UI handler's `grantStore`). */
  grantStore: GrantStore;
  /** Who the request is for, from your verified session (never from the body). Required. */
  principal: PrincipalLookup;
  /** Where failures go. Default: the console. */
  logger?: Logger;
  /** Largest body read, in bytes (a revoke is a few hundred). Default 64 KiB. */
  maxBodyBytes?: number;
}

/** Default largest body of a grants request: 64 KiB. */
export const DEFAULT_GRANTS_BODY_BYTES = 64 * 1024;

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
const reply = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });

/**
 * Serves a person's grants: `GET` → `200 { grants: ListedGrant[] }`; `POST { revoke: { id } }`,
 * `{ revoke: { tool } }` or `{ revoke: { all: true } }` → `200 { removed }`, only ever the
 * requester's own grants (an id of someone else's removes nothing). No principal → 401; another
 * method → 405; a body over `maxBodyBytes` → 413 (unread); a body that is none of these → 400. The revocation holds on the next AG-UI request
 * in every isolate (the AG-UI handler reads the store on every run).
 *
 * @param options - `grantStore`, `principal`, `logger` (default the console), `maxBodyBytes` (64 KiB).
 * @returns `(request) => Promise<Response>`.
 * @example
 * ```ts
 * const grants = createGrantsHandler({ grantStore, principal: (req) => verifiedUser(req) });
 * // fetch("/grants", { method: "POST", body: JSON.stringify({ revoke: { tool: "transfer" } }) })
 * ```
 */
export function createGrantsHandler(options: GrantsHandlerOptions): (request: Request) => Promise<Response> {
  const log = options.logger ?? defaultLogger;
  const store = options.grantStore;
  const maxBytes = positiveIntegerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_GRANTS_BODY_BYTES);
  return async function grantsHandler(request) {
    if (request.method !== "GET" && request.method !== "POST")
      return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
    // A page of another site must not list or revoke with the person's cookies (the endpoint has no CORS).
    if (crossSiteRefused(undefined, request))
      return reply(403, {
        error: "cross_site",
        detail: "This endpoint does not take requests from pages of other sites.",
      });
    const who = await resolvePrincipal(options.principal, request, log);
    if ("missing" in who || who.principal === undefined)
      return reply(401, { error: "unauthenticated", detail: "missing" in who ? who.missing : "no principal" });
    const principal = who.principal;
    try {
      const mine = await grantsOf(store, principal);
      if (request.method === "GET") return reply(200, { grants: mine.map((g) => ({ ...g, id: grantId(g) })) });
      // Bounded like every other body a client sends: the whole of an unbounded one was read before.
      const read = await readBodyWithin(request, maxBytes);
      if ("tooLarge" in read)
        return reply(413, { error: "body_too_large", detail: `The body is over ${maxBytes} bytes.` });
      const target = revokeTarget(parseJson(read.text));
      if (target === undefined)
        return reply(400, { error: "invalid_request", detail: "Send { revoke: { id } | { tool } | { all: true } }." });
      const ids = mine.filter((g) => target(g)).map(grantId);
      let removed = 0;
      for (const id of ids) removed += await store.revoke(id);
      return reply(200, { removed });
    } catch (error) {
      log.error("kaboo: the grants endpoint failed", { error: describe(error) });
      return reply(500, { error: "grant_store_failed", detail: "The grant store could not be read or written." });
    }
  };
}

/** One person's grants: from their own record when the store keeps grants per person, else filtered. */
async function grantsOf(store: GrantStore, principal: string): Promise<Grant[]> {
  const scoped = store as GrantStore & { grantsOf?: (principal: string) => Promise<Grant[]> };
  if (typeof scoped.grantsOf === "function") return scoped.grantsOf(principal);
  return (await store.list()).filter((g) => g.principal === principal);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function revokeTarget(body: unknown): ((grant: Grant) => boolean) | undefined {
  const revoke = (body as { revoke?: unknown } | null)?.revoke as
    | { id?: unknown; tool?: unknown; all?: unknown }
    | undefined;
  if (!revoke || typeof revoke !== "object") return undefined;
  if (typeof revoke.id === "string") return (g) => grantId(g) === revoke.id;
  if (typeof revoke.tool === "string") return (g) => g.tool === revoke.tool;
  if (revoke.all === true) return () => true;
  return undefined;
}
