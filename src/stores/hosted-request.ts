/**
 * What passes between a {@link KabooThread} that hosts runs and the handler it serves them with,
 * beside the request itself. A run's request is kept while the run lives, so that the object's
 * alarm can run it again after the object died; it is kept without its headers (an
 * `Authorization` header or a session cookie is a credential, and storage is no place for one).
 * The handler tells the object whom the request is for, once it has asked the host's `principal`
 * lookup, and the body it read (the object does not read it again); the object keeps them, and
 * marks the request it runs again with the person, so the handler takes the person from the mark
 * instead of asking the lookup (which would find no credentials).
 *
 * The object keeps nothing of a run before the run has taken its thread: the handler calls
 * {@link HostedRunHooks} so that the object writes the kept request and arms its alarm in the same
 * turn as the lease (one commit), after RUN_STARTED went out (the first byte does not wait for the
 * object's output gate). A request refused before it takes the thread leaves nothing behind.
 *
 * The marks live in this isolate's memory, keyed by the very `Request` object the object hands the
 * handler: a request that came over the network can never carry one.
 *
 * @module
 */

/** What the object that hosts a run asks of the handler's stored run. */
export interface HostedRunHooks {
  /**
   * Awaited before the run's first write (its lease), after the response took RUN_STARTED (the
   * handler begins a hosted run only then: the object's output gate holds every byte sent after a
   * write until the write is stored). The object arms its alarm here, in the turn of the lease.
   */
  beforeFirstWrite(): Promise<void>;
  /**
   * Called in the same turn as the write that took the thread (the lease): the object keeps the run
   * (one commit with the lease).
   *
   * @param runId - The run's id.
   */
  taken(runId: string): void;
}

const told = new WeakMap<Request, (read: HostedRequestRead) => void>();
const replayed = new WeakMap<Request, { principal: string | undefined }>();
const hooks = new WeakMap<Request, HostedRunHooks>();

/**
 * Asks to be told when a hosted request's run takes its thread (see {@link HostedRunHooks}).
 *
 * @param request - The request the object hands its handler.
 * @param run - The hooks.
 */
export function onHostedRun(request: Request, run: HostedRunHooks): void {
  hooks.set(request, run);
}

/**
 * The hooks of the object that hosts a request's run, if any.
 *
 * @param request - The request as the handler received it.
 * @returns The hooks, or `undefined` for a request no hosting object handed over.
 */
export function hostedRun(request: Request): HostedRunHooks | undefined {
  return hooks.get(request);
}

/** What the handler read of a hosted request: whom it is for, and its body. */
export interface HostedRequestRead {
  /** The person (`undefined`: a handler without a `principal` lookup). */
  principal: string | undefined;
  /** The body as read (what the object keeps to run the request again). */
  body: string;
}

/**
 * Asks to be told whom a hosted request is for, and its body, once the handler has read them.
 *
 * @param request - The request the object hands its handler.
 * @param listener - Called once the handler has resolved the request's principal and read its body.
 */
export function onHostedRequest(request: Request, listener: (read: HostedRequestRead) => void): void {
  told.set(request, listener);
}

/**
 * Tells the hosting object (if any) whom a request is for and what its body is. The handler calls
 * it after its `principal` lookup accepted the request and it read the body within its bound.
 *
 * @param request - The request as the handler received it.
 * @param read - The person and the body.
 */
export function tellHostedRequest(request: Request, read: HostedRequestRead): void {
  told.get(request)?.(read);
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
