/**
 * A bank assistant as an AG-UI endpoint on Cloudflare Workers, its threads in Durable Objects.
 * Any AG-UI client talks to it: `new HttpAgent({ url, headers: { "x-kaboo-user": "ann" } })`.
 *
 * Each thread lives in its own `KabooThread` Durable Object (SQLite storage): the paused session,
 * the transcript and the record of which calls ran are the server's, so a resume runs the call
 * the person saw exactly once, whichever isolate gets it, however often it is sent.
 *
 * Offline: `npx wrangler dev` with no secrets answers with a scripted model. Set OPENAI_API_KEY for a
 * real one, GRANT_SECRET to hand out signed "always allow" grants (a CUSTOM `kaboo_grants` event
 * the client sends back as `forwardedProps.kaboo_grants`), BANK_API_URL to book transfers.
 */
import { createAguiHandler } from "kaboo-workflows/agui";
import { DurableObjectThreadStore, type DurableObjectNamespaceLike } from "kaboo-workflows/stores/durable-object";
import { bankAgent, principalOf } from "../../shared/bank.ts";

export { KabooThread } from "kaboo-workflows/stores/durable-object";

interface Env {
  KABOO_THREAD: DurableObjectNamespaceLike;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  GRANT_SECRET?: string;
  BANK_API_URL?: string;
  ALLOWED_ORIGIN?: string;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    // Cheap to build; built per request because its options come from `env`.
    const handle = createAguiHandler({
      store: new DurableObjectThreadStore(env.KABOO_THREAD),
      ...(env.GRANT_SECRET ? { secret: env.GRANT_SECRET } : {}),
      principal: principalOf,
      cors: env.ALLOWED_ORIGIN ? { origin: env.ALLOWED_ORIGIN, headers: ["content-type", "accept", "x-kaboo-user"] } : false,
      agent: (_threadId, { secret }) =>
        bankAgent({ openAiApiKey: env.OPENAI_API_KEY, openAiModel: env.OPENAI_MODEL, secret, bankApiUrl: env.BANK_API_URL }),
    });
    return handle(request);
  },
};
