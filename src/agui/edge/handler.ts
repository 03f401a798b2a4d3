/**
 * The edge handler: `Request` → AG-UI over SSE `Response`, for Cloudflare Workers,
 * Deno, Bun, Node 20+ and service workers. Web APIs only.
 *
 * @module
 */
import type { AGUIEvent, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import * as z from "zod/v4/mini";
import type { Agent } from "../../agent/agent.js";
import { describe } from "../../errors.js";
import { positiveIntegerOption } from "../../options.js";
import { DEFAULT_MAX_GRANTS } from "../../grants/grant.js";
import { defaultLogger } from "../../logger.js";
import { runError, runStarted } from "../run-events.js";
import { cancelRun, isCancelBody } from "./run/cancel.js";
import { connectRun, isConnectBody } from "./run/connect.js";
import { corsHeaders, crossSiteRefused, preflightHeaders } from "./request/cors.js";
import { approverView } from "./trust/answerer.js";
import { edgeRun } from "./run/edge-run.js";
import { HistoryConflictError, InvalidSessionError } from "./errors.js";
import { trustedGrants, type EdgeGrantOptions } from "./trust/grants.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  boundedLogger,
  readBodyWithin,
  DEFAULT_MAX_JSON_VALUES,
  DEFAULT_MAX_OBJECT_KEYS,
  tooComplexJson,
  tooDeepPart,
  badIdCharacter,
  reservedThreadId,
  tooLongId,
  tooManyEntries,
} from "./request/limits.js";
import type { AguiExecutionContext, AguiHandlerOptions, HandlerSettings } from "./options.js";
import { resolveHandlerOptions } from "./resolve-options.js";
import { resolvePrincipal } from "./request/principal.js";
import { hostedRun, replayedPrincipal, tellHostedRequest } from "../../stores/hosted-request.js";
import { beginOnceStarted } from "./run/hosted-start.js";
import { plainRunInput } from "./request/run-input.js";
import { RunHub } from "./run/run-hub.js";
import { SafeStop } from "./run/safe-stop.js";
import { openIncomingState, sealOutgoing } from "./trust/seal.js";
import { sseResponse } from "./request/sse.js";
import { keepAlive } from "./run/keep-alive.js";
import { linkedAbort } from "../../agent/shared/abort.js";
import { isResume } from "../core/spent-answers.js";

export { GRANTS_EVENT } from "./trust/grants.js";
export type {
  AguiCorsOptions,
  AguiExecutionContext,
  AguiHandlerContext,
  AguiHandlerLimits,
  AguiHandlerOptions,
  AguiHandlerStores,
  AguiHandlerTiming,
  AguiHandlerTrust,
  RunMode,
} from "./options.js";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/**
 * Serves AG-UI runs over HTTP: POST a `RunAgentInput` (JSON), get the run's AG-UI events as
 * Server-Sent Events (`data: <json>\n\n`, `: ping` heartbeats while the run is quiet). A body over
 * `limits.maxBodyBytes` → 413; bad JSON, JSON nested deeper than `limits.maxJsonDepth` or a body that is not a
 * `RunAgentInput` → 400 `{ error, detail }`; a failing `trust.principal` → 401; other methods → 405. A
 * failure mid-run becomes RUN_ERROR and the stream ends.
 *
 * With a thread store (`stores.thread`) a run is the thread's, not the request's: a client that goes away does not cancel
 * it (it goes on to its end or next pause and records what ran). Only a Stop does: POST
 * `{ "kaboo_cancel": { "threadId", "runId"? } }` (the thread's principal only) → 202, and the run
 * ends `cancelled` at its next safe point; a call already executing has its signal aborted, and one
 * that has not ended within the agent's `toolGraceMs` is abandoned (the run ends asking `outcome_unknown`).
 * Without a store nothing could record a run nobody reads, so a client that disconnects aborts it.
 *
 * Approvals pause with `RUN_FINISHED { outcome: { type: "interrupt" } }`; the client answers with
 * `resume`. With a `store` the thread lives on the server. Without one the paused session travels
 * sealed in the state's `kaboo_session` key: send the state back as received.
 * To let people choose `thread`/`always`, the client must send `forwardedProps.kaboo_grants` (even `[]`).
 *
 * @param grouped - The `agent` factory; `stores` (`thread`, `grants`, `ledger`, `audit`), `trust` (`secret`,
 *   `principal`, `acceptUnsignedGrants`, `insecureDevelopmentMode`), `limits` (`maxBodyBytes` 1 MiB,
 *   `maxJsonDepth` 64, …), `timing` (`runLeaseMs` 30 s, `eventLogRetentionMs` 10 min, `heartbeatMs` 15 s),
 *   `cors`, `prepare`, `logger`. See {@link AguiHandlerOptions}.
 * @returns `(request, context?) => Promise<Response>`. `context` is what the host passes beside the request;
 *   a serverless host's `waitUntil` in it (see {@link AguiExecutionContext}) is given the run, with a thread
 *   store, so it outlives the response. Anything else there (Deno.serve's info, a Node server's bindings) is ignored.
 * @throws {UserError} Without `stores.thread` and `trust.secret`, unless `trust.insecureDevelopmentMode` is set; for
 *   an unknown or moved option; for a contradictory combination (see `resolveHandlerOptions`).
 * @example
 * ```ts
 * // Cloudflare Worker with a Durable Object per thread
 * export { KabooThread } from "kaboo-workflows/stores/durable-object";
 * export default {
 *   fetch: (request: Request, env: Env) =>
 *     createAguiHandler({
 *       stores: { thread: new DurableObjectThreadStore(env.KABOO_THREAD) },
 *       trust: { secret: env.GRANT_SECRET, principal: (req) => verifiedUser(req) },
 *       agent: (threadId, { secret }) => new Agent({ model, tools, hooks: [new InterruptHook(["transfer"], { secret })] }),
 *     })(request),
 * };
 * ```
 */
export function createAguiHandler(
  grouped: AguiHandlerOptions,
): (request: Request, context?: unknown) => Promise<Response> {
  const options = resolveHandlerOptions(grouped);
  const settings: Settings = {
    options,
    log: boundedLogger(options.logger ?? defaultLogger),
    allow: options.cors ? "POST, OPTIONS" : "POST",
    maxDepth: positiveIntegerOption("maxJsonDepth", options.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH),
    maxBytes: positiveIntegerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    maxGrants: positiveIntegerOption("maxGrants", options.maxGrants, DEFAULT_MAX_GRANTS),
  };
  positiveIntegerOption("runLeaseMs", options.runLeaseMs, 1);
  positiveIntegerOption("maxJsonValues", options.maxJsonValues, DEFAULT_MAX_JSON_VALUES);
  positiveIntegerOption("maxObjectKeys", options.maxObjectKeys, DEFAULT_MAX_OBJECT_KEYS);
  for (const [key, n] of Object.entries(options.maxEntries ?? {})) positiveIntegerOption(`maxEntries.${key}`, n, 1);
  return async function handleAgui(request, context) {
    const cors = corsHeaders(options.cors, request);
    if (request.method === "OPTIONS" && options.cors)
      return new Response(null, { status: 204, headers: { ...cors, ...preflightHeaders(options.cors) } });
    const read = await readRequest(request, settings, cors);
    if (read instanceof Response) return read;
    if ("cancel" in read) {
      const answer = await cancelRun(read.cancel, { store: options.store, principal: read.principal });
      return json(answer.status, answer.body, cors);
    }
    if ("connect" in read) {
      const lastEventId = request.headers.get("last-event-id");
      const found = await connectRun(read.connect, { store: options.store, principal: read.principal, lastEventId });
      if ("status" in found) return json(found.status, found.body, cors);
      return sseResponse(found.events, options, cors, undefined, found.idOf);
    }
    return startRun(request, read.input, read.principal, settings, cors, context);
  };
}

/** What the handler settled at creation. */
interface Settings {
  options: HandlerSettings;
  log: ReturnType<typeof boundedLogger>;
  allow: string;
  maxDepth: number;
  maxBytes: number;
  maxGrants: number;
}

function json(status: number, body: Record<string, unknown>, cors: Record<string, string>, headers = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...cors, ...headers } });
}

/** A request's body: a run, a Stop or a reattach, with whom it is for. */
type ReadRequest = { principal: string | undefined } & (
  | { input: RunAgentInput }
  | { cancel: unknown }
  | { connect: unknown }
);

/** The request's body and its principal, or the error response. */
async function readRequest(
  request: Request,
  { options, log, allow, maxDepth, maxBytes }: Settings,
  cors: Record<string, string>,
): Promise<Response | ReadRequest> {
  const fail = (status: number, error: string, detail: string, extra: Record<string, unknown> = {}, headers = {}) =>
    json(status, { error, detail, ...extra }, cors, headers);
  if (request.method !== "POST")
    return fail(405, "method_not_allowed", `This endpoint accepts ${allow} only.`, {}, { allow });
  // Before the principal: a page of another site must not act with the person's cookies.
  if (crossSiteRefused(options.cors, request))
    return fail(403, "cross_site", "This endpoint does not take requests from pages of other sites (see `cors`).");
  // Who it is for comes first: nothing of a request from no one is read.
  // A run its hosting object runs again comes without the client's headers, marked with its person.
  const who = replayedPrincipal(request) ?? (await resolvePrincipal(options.principal, request, log));
  if ("missing" in who) return fail(401, "unauthenticated", who.missing);
  const { principal } = who;
  const read = await readBodyWithin(request, maxBytes);
  if ("tooLarge" in read) return fail(413, "body_too_large", `The body is larger than ${maxBytes} bytes.`);
  tellHostedRequest(request, { principal, body: read.text });
  const complex = tooComplexJson(read.text, {
    maxValues: options.maxJsonValues ?? DEFAULT_MAX_JSON_VALUES,
    maxObjectKeys: options.maxObjectKeys ?? DEFAULT_MAX_OBJECT_KEYS,
    // Only a guard for the parser: each part's own depth is checked, and named, once it is parsed.
    maxDepth: 2 * (maxDepth + 8),
  });
  if (complex) return fail(400, complex.error, complex.detail);
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch (error) {
    return fail(400, "invalid_json", `The body is not JSON: ${describe(error)}`);
  }
  const deep = tooDeepPart(body, maxDepth);
  if (deep) return fail(400, "too_deep", `${deep} is nested deeper than ${maxDepth} levels.`);
  const many = tooManyEntries(body, options.maxEntries);
  if (many) return fail(400, "too_many", many);
  const longId = tooLongId(body);
  if (longId) return fail(400, "id_too_long", longId);
  const badId = badIdCharacter(body);
  if (badId) return fail(400, "invalid_id", badId);
  const reserved = reservedThreadId(body);
  if (reserved) return fail(400, "reserved_thread_id", reserved);
  if (isCancelBody(body)) return { cancel: body, principal };
  if (isConnectBody(body)) return { connect: body, principal };
  const plain = plainRunInput(body);
  if (plain) return { input: plain, principal };
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
    // The first 20 issues only: a list of bad entries must not buy a sentence each.
    const shown = z.prettifyError({ issues: parsed.error.issues.slice(0, 20) } as typeof parsed.error);
    return fail(400, "invalid_run_input", `The body is not an AG-UI RunAgentInput:\n${shown}`, {
      issues,
    });
  }
  return { input: parsed.data as RunAgentInput, principal };
}

/** Opens the incoming state, makes the agent and streams the run. */
async function startRun(
  request: Request,
  received: RunAgentInput,
  principal: string | undefined,
  { options, log, maxGrants }: Settings,
  cors: Record<string, string>,
  context: unknown,
): Promise<Response> {
  const grants: EdgeGrantOptions = { ...options, maxGrants, principal, log };
  let input = received;
  let agent: Agent;
  try {
    const opened = await openIncomingState(input, {
      store: options.store !== undefined,
      secret: options.secret,
      principal,
    });
    if (opened instanceof InvalidSessionError || opened instanceof HistoryConflictError) {
      log.warn("kaboo: session refused", { reason: opened.message, threadId: input.threadId });
      return sseResponse(refusal(input, opened), options, cors);
    }
    input = { ...input, state: opened, forwardedProps: await trustedGrants(input, grants) };
    agent = await options.agent(input.threadId, { secret: options.secret, request });
  } catch (error) {
    log.error("kaboo: the AG-UI handler could not start the run", { error: describe(error), threadId: input.threadId });
    return json(500, { error: "run_not_started", detail: describe(error) }, cors);
  }
  const stop = new SafeStop();
  const hub = new RunHub(input.runId);
  const run = { agent, input, stop, hub, request, options, grants, log };
  if (options.store) {
    // The run is the thread's: the request's signal and the reader going away change nothing.
    // The run is pumped by itself (a reader that stops pulling cannot stall it); the response watches.
    // The hub (the thread's log, the owner's reattach) keeps every event; an approver's response shows less.
    let approver = false;
    const onApprover = () => {
      approver = true;
    };
    const begin = (decided?: () => void) => {
      stop.install(agent, { resuming: isResume(input) });
      const events = edgeRun({ ...run, signal: stop.signal, release: () => {}, onApprover, decided });
      const pumped = hub.pump(sealOutgoing(events, input.threadId, options.secret, { principal })).finally(decided);
      keepAlive(context, pumped, log);
    };
    // In a hosting object RUN_STARTED goes out first, alone, and the run begins once it has left.
    const started = hostedRun(request) ? beginOnceStarted({ hub, input, store: options.store }, begin) : undefined;
    if (!started) begin();
    const shownFor = new WeakMap<AGUIEvent, AGUIEvent>();
    const shown = approverView(hub.watch(started ? 0 : -1, true), () => approver, shownFor);
    return sseResponse(shown, options, cors, undefined, (e) => hub.idOf(shownFor.get(e) ?? e), started);
  }
  const controller = linkedAbort(request.signal);
  // Deno aborts request.signal once a response is delivered: only an abort during the run counts.
  const events = edgeRun({ ...run, signal: controller.signal, release: controller.unlink });
  const sealed = sealOutgoing(events, input.threadId, options.secret, { principal, everyTurn: true, inPlace: true });
  return sseResponse(sealed, options, cors, controller);
}

async function* refusal(
  input: RunAgentInput,
  error: InvalidSessionError | HistoryConflictError,
): AsyncGenerator<AGUIEvent> {
  yield runStarted(input);
  yield runError(error);
}
