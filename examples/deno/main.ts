/**
 * A bank assistant as an AG-UI endpoint on Deno, its threads in Deno KV: `npm run example:deno` from the
 * repository root (after `npm run build`; deno.json maps kaboo-workflows to the repository's dist/), then
 * point any AG-UI client at it (`new HttpAgent({ url: "http://localhost:8000", headers: { "x-kaboo-user": "ann" } })`).
 * In a project of your own, map `kaboo-workflows` to `npm:kaboo-workflows` instead.
 *
 * The paused session, the transcript and the record of which calls ran live in Deno KV (a local
 * SQLite file, or Deno Deploy's KV): a resume runs the call the person saw exactly once, however
 * often it is sent, from whichever process.
 *
 * Offline out of the box (a scripted model answers). Set OPENAI_API_KEY for a real model,
 * GRANT_SECRET to hand out signed "always allow" grants, BANK_API_URL to book transfers, KV_PATH
 * for the database file (default: Deno's own location), PORT (default 8000).
 */
import { createAguiHandler } from "kaboo-workflows/agui";
import { DenoKvThreadStore, type KvLike } from "kaboo-workflows/stores/deno-kv";
import { bankAgent, principalOf } from "../shared/bank.ts";

declare const Deno: {
  env: { get(name: string): string | undefined };
  openKv(path?: string): Promise<KvLike>;
  serve(
    options: { port: number; hostname?: string; onListen?(addr: { hostname: string; port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const env = (name: string) => Deno.env.get(name) || undefined;
const secret = env("GRANT_SECRET");
const store = new DenoKvThreadStore(await Deno.openKv(env("KV_PATH")));

const handle = createAguiHandler({
  stores: { thread: store },
  trust: { principal: principalOf, ...(secret ? { secret } : {}) },
  cors: { headers: ["content-type", "accept", "x-kaboo-user"] },
  agent: (_threadId, context) =>
    bankAgent({
      openAiApiKey: env("OPENAI_API_KEY"),
      openAiModel: env("OPENAI_MODEL"),
      secret: context.secret,
      bankApiUrl: env("BANK_API_URL"),
    }),
});

Deno.serve(
  {
    port: Number(env("PORT") ?? 8000),
    hostname: env("HOSTNAME") ?? "0.0.0.0",
    onListen: ({ hostname, port }) => console.log(`kaboo: listening on http://${hostname}:${port}`),
  },
  handle,
);
