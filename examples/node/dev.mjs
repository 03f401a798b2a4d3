#!/usr/bin/env node
// `npm run example:node`: the bank assistant on Node (Hono on @hono/node-server), its threads in
// PostgreSQL: PGlite under .tmp/node-example-data by default, a real server when DATABASE_URL is set.
// Environment: PORT (default 8789), HOSTNAME (default 127.0.0.1), DATABASE_URL, GRANT_SECRET,
// OPENAI_API_KEY, OPENAI_MODEL, BANK_API_URL.
import { startExample } from "./serve.mjs";

const { url } = await startExample({
  port: Number(process.env.PORT ?? 8789),
  hostname: process.env.HOSTNAME ?? "127.0.0.1",
});
const where = process.env.DATABASE_URL ? "PostgreSQL at DATABASE_URL" : "PGlite in .tmp/node-example-data";
console.log(`Node example on ${url} (threads in ${where}); send x-kaboo-user: ann and try "pay bob 5"`);
