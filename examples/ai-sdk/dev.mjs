#!/usr/bin/env node
// `npm run example:ai-sdk`: the AI SDK example (a streamText server with a scripted model, no key
// needed, and a page on the AI SDK's chat client) at http://127.0.0.1:8788/ (PORT, HOSTNAME).
import { startExample } from "./serve.mjs";

const { url } = await startExample({
  port: Number(process.env.PORT ?? 8788),
  hostname: process.env.HOSTNAME ?? "127.0.0.1",
});
console.log(`AI SDK example: ${url} (try "pay ann 5")`);
