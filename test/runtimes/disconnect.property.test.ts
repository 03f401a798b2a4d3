/**
 * The disconnect property of test/agui/edge/disconnect.property.test.ts on the platforms, for a
 * smaller count: the runs hosted in each thread's Durable Object in workerd, and over Deno KV in
 * Deno; the client drives them over HTTP from this process. KABOO_PROPERTY_RUNS / 10 raises the
 * count (default 20 per platform).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import { expectDisconnectProperty } from "../agui/edge/disconnect-property.js";
import { conversation, type Handle } from "../agui/edge/disconnect-scenario.js";
import { bundleEntry } from "./bundle.js";
import { denoServer } from "./deno-process.js";

const RUNS = Math.max(20, Math.floor((Number(process.env.KABOO_PROPERTY_RUNS) || 0) / 10));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-disconnect-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Server {
  url: string;
  stop(): Promise<void>;
}

const workerd = async (): Promise<Server> => {
  const mf = new Miniflare({
    modules: true,
    script: await bundleEntry("disconnect-entry-worker.ts"),
    compatibilityDate: "2025-04-01",
    durableObjects: {
      THREAD: { className: "KabooThread", useSQLite: true },
      BANK: { className: "Bank", useSQLite: true },
    },
    port: 0,
    host: "127.0.0.1",
  });
  return { url: (await mf.ready).toString().replace(/\/$/, ""), stop: () => mf.dispose() };
};

const deno = async (): Promise<Server> => {
  const file = join(dir, "disconnect.deno.mjs");
  writeFileSync(file, await bundleEntry("disconnect-entry-deno.ts"));
  const { url, stop } = await denoServer(file, dir, [join(dir, "disconnect.db")]);
  return { url, stop };
};

describe.each([
  ["workerd, runs hosted in Durable Objects", workerd],
  ["Deno, Deno KV", deno],
] as const)("property: a client disconnect at any point, %s", (_name, start) => {
  let server: Server;
  beforeAll(async () => {
    server = await start();
  }, 60_000);
  afterAll(() => server?.stop());

  test(`the same transcript, the approved call once, nothing cancelled, no question twice (${RUNS} runs)`, async () => {
    const handle: Handle = async (request) =>
      fetch(`${server.url}/agui`, { method: "POST", headers: request.headers, body: await request.text() });
    const json = async <T>(path: string) => (await (await fetch(server.url + path)).json()) as T;
    let n = 0;
    const world = async (cut?: Parameters<typeof conversation>[2]) => {
      const thread = `t${n++}`;
      const seen = await conversation(handle, thread, cut);
      const record = await json<ThreadRecord>(`/load?thread=${thread}`);
      return { ...seen, record, sent: await json<string[]>(`/sent?thread=${thread}`) };
    };
    await expectDisconnectProperty(world, RUNS);
  }, 300_000);
});
