/**
 * Reattach on the platforms: a client that drops a run's stream after event k and reconnects
 * (Last-Event-ID) gets exactly events k+1… and the live tail. In workerd the run is hosted in its
 * thread's Durable Object (the object's own hub, and its SQLite log after a restart of workerd); in
 * Deno the client reconnects to another process on the same Deno KV file (the log, polled live).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFrames } from "../agui/edge/disconnect-scenario.js";
import { runBody } from "../fixtures/run-input.js";
import { bundleEntry } from "./bundle.js";
import { denoServer } from "./deno-process.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-reattach-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Frame {
  id: string | undefined;
  type: string;
}

const story = (threadId: string) =>
  JSON.stringify(runBody(threadId, { messages: [{ id: `u-${threadId}`, role: "user", content: "a story" }] }));

/** POSTs and reads SSE frames, dropping the connection after `limit` of them. */
async function frames(
  url: string,
  body: string,
  headers: Record<string, string> = {},
  limit = Infinity,
): Promise<Frame[]> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return (await readFrames(res, limit)).map((f) => ({ id: f.id, type: f.data.type }));
}

async function expectReattach(first: string, second: string, threadId: string, k: number, whole: Frame[]) {
  const head = await frames(first, story(threadId), {}, k);
  const rest = await frames(second, JSON.stringify({ kaboo_connect: { threadId } }), {
    "last-event-id": head.at(-1)!.id!,
  });
  const got = [...head, ...rest];
  expect(got.map((f) => f.type)).toEqual(whole.map((f) => f.type));
  const runId = head[0]!.id!.split(":")[0];
  expect(got.map((f) => f.id)).toEqual(whole.map((_, i) => `${runId}:${i}`));
}

describe("reattach in workerd: the run hosted in its thread's Durable Object", () => {
  test("after any event, live; and from the object's log after workerd restarts", async () => {
    const script = await bundleEntry("hosted-entry-worker.ts");
    const persist = join(dir, "do");
    const start = async () => {
      const mf = new Miniflare({
        modules: true,
        script,
        compatibilityDate: "2025-04-01",
        durableObjects: {
          THREAD: { className: "KabooThread", useSQLite: true },
          BANK: { className: "Bank", useSQLite: true },
        },
        durableObjectsPersist: persist,
        port: 0,
        host: "127.0.0.1",
      });
      return { mf, url: (await mf.ready).toString().replace(/\/$/, "") };
    };
    const first = await start();
    let whole: Frame[] = [];
    try {
      whole = await frames(first.url, story("ref"));
      expect(whole.at(-1)?.type).toBe("RUN_FINISHED");
      for (const k of [1, 5, whole.length - 1]) await expectReattach(first.url, first.url, `t${k}`, k, whole);
      await frames(first.url, story("before-restart"));
    } finally {
      await first.mf.dispose();
    }
    const second = await start();
    try {
      const ids = (
        await frames(second.url, JSON.stringify({ kaboo_connect: { threadId: "ref" } }), {
          "last-event-id": whole[2]!.id!,
        })
      ).map((f) => f.id);
      expect(ids).toEqual(whole.slice(3).map((f) => f.id));
    } finally {
      await second.mf.dispose();
    }
  });
});

describe("reattach in Deno: another process on the same Deno KV file", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill();
  });

  const serve = async (file: string, db: string) => (await denoServer(file, dir, [db], { children })).url;

  test("a client that drops after event k and reconnects elsewhere gets exactly the rest", async () => {
    const file = join(dir, "reattach.deno.mjs");
    writeFileSync(file, await bundleEntry("reattach-entry-deno.ts"));
    const db = join(dir, "reattach.db");
    const a = await serve(file, db);
    const b = await serve(file, db);
    const whole = await frames(a, story("ref"));
    expect(whole.at(-1)?.type).toBe("RUN_FINISHED");
    for (const k of [1, 10, whole.length - 1]) await expectReattach(a, b, `t${k}`, k, whole);
  });
});
