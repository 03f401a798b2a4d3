/**
 * What passes between a {@link KabooThread} that hosts runs and the handler it serves them with,
 * beside the request itself. A run's request is kept while the run lives, so that the object's
 * alarm can run it again after the object died; it is kept without its headers (an
 * `Authorization` header or a session cookie is a credential, and storage is no place for one).
 * The handler tells the object whom the request is for, once it has asked the host's `principal`
 * lookup; the object keeps that, and marks the request it runs again with it, so the handler takes
 * the person from the mark instead of asking the lookup (which would find no credentials).
 *
 * The marks live in this isolate's memory, keyed by the very `Request` object the object hands the
 * handler: a request that came over the network can never carry one.
 *
 * @module
 */

const told = new WeakMap<Request, (principal: string | undefined) => void>();
const replayed = new WeakMap<Request, { principal: string | undefined }>();

/**
 * Asks to be told whom a hosted request is for.
 *
 * @param request - The request the object hands its handler.
 * @param listener - Called once the handler has resolved the request's principal.
 */
export function onHostedPrincipal(request: Request, listener: (principal: string | undefined) => void): void {
  told.set(request, listener);
}

/**
 * Tells the hosting object (if any) whom a request is for. The handler calls it after its
 * `principal` lookup accepted the request.
 *
 * @param request - The request as the handler received it.
 * @param principal - The person (`undefined`: a handler without a lookup).
 */
export function tellHostedPrincipal(request: Request, principal: string | undefined): void {
  told.get(request)?.(principal);
}

/**
 * Marks a request the object runs again for the person its first run was for.
 *
 * @param request - The rebuilt request (no headers of the client's).
 * @param principal - The principal the first run was for.
 * @returns The request.
 */
export function markReplayed(request: Request, principal: string | undefined): Request {
  replayed.set(request, { principal });
  return request;
}

/**
 * The person a request run again by its hosting object is for.
 *
 * @param request - The request as the handler received it.
 * @returns `{ principal }` for a request the object marked, `undefined` for any other.
 */
export function replayedPrincipal(request: Request): { principal: string | undefined } | undefined {
  return replayed.get(request);
}
