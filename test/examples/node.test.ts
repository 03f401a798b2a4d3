/**
 * examples/node (`npm run example:node`) as a person runs it: Hono on @hono/node-server, threads in
 * PGlite under a folder. "pay bob 5" asks for approval; the server is stopped and started again on the
 * same folder, and the approval sent then books the transfer (at a bank API of the test's) once: a
 * pending approval survives a restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventType } from "@ag-ui/core";
import { afterAll, expect, test } from "vitest";
import { startExample } from "../../examples/node/serve.mjs";
import { pause, post, resumeBody, send } from "../agui/edge/fixtures.js";

const dataDir = mkdtempSync(join(tmpdir(), "kaboo-node-example-"));
const closers: (() => Promise<void>)[] = [];
/** The bank's API: every booking it received (its idempotency key). */
const booked: string[] = [];
const bank = createServer((req, res) => {
  booked.push(String(req.headers["idempotency-key"]));
  res.end("{}");
});
const bankUrl = await new Promise<string>((ok) =>
  bank.listen(0, "127.0.0.1", () => ok(`http://127.0.0.1:${(bank.address() as { port: number }).port}/`)),
);
closers.push(() => new Promise((ok) => bank.close(() => ok())));
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start() {
  const { url, close } = await startExample({ dataDir, databaseUrl: "", bankApiUrl: bankUrl });
  closers.push(close);
  const handle = async (r: Request) => fetch(url, { method: r.method, headers: r.headers, body: await r.text() });
  return { handle, close };
}

test("an approval asked before a restart is answered after it, and the transfer is booked once", async () => {
  const ann = { "x-kaboo-user": "ann" };
  const first = await start();
  expect((await first.handle(post({ threadId: "t" }))).status).toBe(401);
  const { turn } = await pause(first.handle, "t", "pay bob 5", ann);
  await first.close();
  expect(booked).toEqual([]);

  const second = await start();
  const body = resumeBody("t", turn, { approved: true });
  const done = await send(second.handle, body, ann);
  expect(done.outcome).toBe("success");
  const text = done.events
    .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
    .map((e) => (e as { delta?: string }).delta ?? "")
    .join("");
  expect(text).toMatch(/5.*bob/i);
  expect(booked).toHaveLength(1);
  // The same approval again, after the run ended: answered from the record, nothing booked twice.
  const again = await send(second.handle, { ...body, runId: crypto.randomUUID() }, ann);
  expect(again.error).toBeUndefined();
  expect(booked).toHaveLength(1);
}, 120_000);
