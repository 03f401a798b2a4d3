/**
 * A bank assistant as an AG-UI endpoint on Cloudflare Workers, each thread's runs hosted in the
 * thread's own Durable Object. Any AG-UI client talks to it:
 * `new HttpAgent({ url, headers: { "x-kaboo-user": "ann" } })`.
 *
 * The Worker only forwards each request to the thread's `KabooThread` object (one round trip);
 * the object runs it on its own SQLite storage: the paused session, the transcript and the record
 * of which calls ran are the server's, so a resume runs the call the person saw exactly once, a
 * client that goes away does not stop the run (reattach with `kaboo_connect` or `Last-Event-ID`),
 * only `{ kaboo_cancel: { threadId } }` does, and a run that died with its object is noticed by an
 * alarm and run again (a call cut off mid-way becomes a question, never a second transfer).
 *
 * Offline: `npm run example:worker` from the repository root (workerd through miniflare, no account; see
 * ../dev.mjs) answers with a scripted model; with Node 22.12+, `npx wrangler dev` here does the same. Set OPENAI_API_KEY for a
 * real one, GRANT_SECRET to hand out signed "always allow" grants (a CUSTOM `kaboo_grants` event
 * the client sends back as `forwardedProps.kaboo_grants`), BANK_API_URL to book transfers.
 */
import { createAguiHandler, forwardToThread } from "kaboo-workflows/agui";
import {
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  KabooThread as KabooThreadBase,
} from "kaboo-workflows/stores/durable-object";
import { bankAgent, principalOf } from "../../shared/bank.ts";

interface Env {
  KABOO_THREAD: DurableObjectNamespaceLike;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  GRANT_SECRET?: string;
  BANK_API_URL?: string;
  ALLOWED_ORIGIN?: string;
}

/** One thread: its record, its ledger, and its runs. */
export class KabooThread extends KabooThreadBase {
  constructor(ctx: DurableObjectStateLike, env: Env) {
    super(ctx, env, {
      handler: (store) =>
        createAguiHandler({
          stores: { thread: store },
          trust: { principal: principalOf, ...(env.GRANT_SECRET ? { secret: env.GRANT_SECRET } : {}) },
          cors: env.ALLOWED_ORIGIN
            ? { origin: env.ALLOWED_ORIGIN, headers: ["content-type", "accept", "x-kaboo-user"] }
            : false,
          agent: (_threadId, { secret }) =>
            bankAgent({
              openAiApiKey: env.OPENAI_API_KEY,
              openAiModel: env.OPENAI_MODEL,
              secret,
              bankApiUrl: env.BANK_API_URL,
            }),
        }),
    });
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return forwardToThread(request, env.KABOO_THREAD);
  },
};
