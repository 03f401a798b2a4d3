/**
 * The Cloudflare Workers guide's code as printed, in workerd (miniflare, SQLite-backed Durable Objects, the
 * settings of the guide's wrangler.toml): its `KabooThread` subclass and `forwardToThread` Worker, given an
 * `agent` and a `principal` (the guide leaves those to the app; here a scripted model and a gated transfer, as
 * in the Node guide's try-out), pause on the transfer and run it once when the answer comes, in the thread's
 * own object. The package is taken from dist/ by its public entries, as an app's bundler would.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, test } from "vitest";
import { bundleEntry, ensureDist, ROOT } from "./bundle.js";

/** The first ```ts block of the page, hidden lines included (esbuild drops their types and declarations). */
function firstTsBlock(page: string): string {
  const text = readFileSync(join(ROOT, "docs/guide", page), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  if (!code) throw new Error(`${page} has no ts block`);
  return code;
}

/** What the guide leaves to the app. */
const APP = `
import { Agent, ScriptedModel, tool } from "kaboo-workflows";
import { InterruptHook } from "kaboo-workflows/hooks";
import * as z from "zod/v4";
const transfer = tool({
  name: "transfer",
  description: "Send money.",
  inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
  callback: ({ to, amount }) => \`Sent \${amount} to \${to}.\`,
});
const script = ({ lastToolResults }) =>
  lastToolResults.length === 0
    ? { toolCalls: [{ name: "transfer", input: { to: "alice", amount: 5 } }] }
    : { text: lastToolResults[0]?.status === "success" ? "Done: sent 5 to alice." : "Not sent." };
const agent = (_threadId, { secret }) =>
  new Agent({ model: new ScriptedModel({ script }), tools: [transfer], hooks: [new InterruptHook(["transfer"], { secret })] });
const principal = (request) => request.headers.get("x-user");
`;

let mf: Miniflare;
beforeAll(async () => {
  ensureDist();
  const dir = join(ROOT, ".tmp");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `docs-guide-worker-${process.pid}.ts`);
  const guide = firstTsBlock("cloudflare-workers.md").replace(/^declare const agent.*$/m, "");
  writeFileSync(file, `${APP}\n${guide}`);
  let script: string;
  try {
    script = await bundleEntry(file);
  } finally {
    rmSync(file, { force: true });
  }
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    durableObjects: { KABOO_THREAD: { className: "KabooThread", useSQLite: true } },
    bindings: { GRANT_SECRET: "docs-guide-secret" },
  });
  await mf.ready;
}, 120_000);
afterAll(() => mf?.dispose());

/** POSTs a run body as ann; the AG-UI events of the SSE answer. */
async function post(body: Record<string, unknown>): Promise<{ type: string; [key: string]: unknown }[]> {
  const response = await mf.dispatchFetch("http://localhost/", {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": "ann" },
    body: JSON.stringify({ tools: [], context: [], state: {}, forwardedProps: {}, ...body }),
  });
  const text = await response.text();
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
}

test("the Workers guide's Durable Object and Worker pause on the transfer and run it once on the answer", async () => {
  const threadId = crypto.randomUUID();
  const asked = await post({ threadId, runId: "r1", messages: [{ id: "m1", role: "user", content: "Pay Alice 5" }] });
  const finished = asked.at(-1) as { type: string; outcome?: { type: string; interrupts: { id: string }[] } };
  expect(finished.type).toBe("RUN_FINISHED");
  expect(finished.outcome?.type).toBe("interrupt");
  const resume = [
    { interruptId: finished.outcome!.interrupts[0]!.id, status: "resolved", payload: { approved: true } },
  ];
  const answered = await post({ threadId, runId: "r2", messages: [], resume });
  const results = answered.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.content);
  expect(results).toEqual(["Sent 5 to alice."]);
  const said = answered.flatMap((e) => (e.type === "TEXT_MESSAGE_CONTENT" ? [e.delta] : [])).join("");
  expect(said).toBe("Done: sent 5 to alice.");
});
