/**
 * The edge thread stores on their real platforms: DurableObjectThreadStore with the KabooThread
 * class bound in workerd (miniflare, SQLite-backed storage), DenoKvThreadStore in Deno with
 * --unstable-kv on a temporary database file. Both run the contract of test/stores/contract.ts;
 * races go across requests (workerd) and across processes (Deno).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import type { ContractResult } from "../stores/contract.js";
import { CONTRACT_CHECKS } from "../stores/contract.js";
import { HOLDER_CHECKS } from "../stores/holder-contract.js";
import { bundleEntry } from "./bundle.js";
import { denoOnce } from "./deno-process.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-stores-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A miniflare with the KabooThread class bound as THREAD on SQLite storage. */
async function threadWorker(script: string, persist?: string): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    durableObjects: { THREAD: { className: "KabooThread", useSQLite: true } },
    ...(persist ? { durableObjectsPersist: persist } : {}),
  });
  await mf.ready;
  return mf;
}

describe("DurableObjectThreadStore in workerd", () => {
  let script = "";
  let mf: Miniflare;
  beforeAll(async () => {
    script = await bundleEntry("stores-entry-worker.ts");
    mf = await threadWorker(script);
  }, 60_000);
  afterAll(() => mf?.dispose());

  const json = async <T>(path: string) => (await (await mf.dispatchFetch(`http://localhost${path}`)).json()) as T;

  test("passes the store contract", async () => {
    const results = await json<ContractResult[]>("/contract");
    expect(results.map((r) => r.name)).toEqual(CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("claims name the run that made them: a dead run's open claim reads unknown to the run that took over", async () => {
    const results = await json<ContractResult[]>("/holder-contract");
    expect(results.map((r) => r.name)).toEqual(HOLDER_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("of 10 requests racing to write one thread version exactly one wins", async () => {
    const thread = crypto.randomUUID();
    const wins = await Promise.all(
      Array.from({ length: 10 }, (_, i) => json<{ ok: boolean }>(`/cas?thread=${thread}&expected=0&marker=m${i}`)),
    );
    expect(wins.filter((w) => w.ok)).toHaveLength(1);
    const record = await json<ThreadRecord>(`/load?thread=${thread}`);
    expect(record.session).toEqual({ marker: `m${wins.findIndex((w) => w.ok)}` });
  });

  test("of 10 requests racing to claim one call exactly one claims it", async () => {
    const thread = crypto.randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => json<{ status: string }>(`/claim?thread=${thread}&key=pay`)),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(["claimed", ...Array(9).fill("running")]);
  });

  test("the object refuses bodies that are not store operations, and stays usable", async () => {
    const raw = (body: string) =>
      mf.dispatchFetch(`http://localhost/raw?thread=bad`, { method: "POST", body }).then((r) => r.json());
    expect(await raw("{")).toMatchObject({ status: 400, body: { error: expect.any(String) } });
    expect(await raw(JSON.stringify({ op: "drop table" }))).toMatchObject({
      status: 500,
      body: { error: expect.stringMatching(/unknown operation/) },
    });
    expect(await json<{ status: string }>("/claim?thread=bad&key=k")).toMatchObject({ status: "claimed" });
  });

  test("a thread and its claims survive a restart (persisted storage)", async () => {
    const persist = join(dir, "do-persist");
    const thread = crypto.randomUUID();
    const first = await threadWorker(script, persist);
    try {
      await first.dispatchFetch(`http://localhost/cas?thread=${thread}&expected=0&marker=before-restart`);
      expect(await (await first.dispatchFetch(`http://localhost/claim?thread=${thread}&key=pay`)).json()).toMatchObject(
        {
          status: "claimed",
        },
      );
    } finally {
      await first.dispose();
    }
    const second = await threadWorker(script, persist);
    try {
      const record = (await (
        await second.dispatchFetch(`http://localhost/load?thread=${thread}`)
      ).json()) as ThreadRecord;
      expect([record.version, record.session]).toEqual([1, { marker: "before-restart" }]);
      expect(
        await (await second.dispatchFetch(`http://localhost/claim?thread=${thread}&key=pay`)).json(),
      ).toMatchObject({
        status: "running",
      });
    } finally {
      await second.dispose();
    }
  });
});

describe("DenoKvThreadStore in Deno (--unstable-kv, a database file)", () => {
  let file = "";
  beforeAll(async () => {
    file = join(dir, "stores.deno.mjs");
    writeFileSync(file, await bundleEntry("stores-entry-deno.ts"));
  }, 60_000);

  const deno = (...args: string[]) => denoOnce(file, dir, args);

  test("passes the store contract", async () => {
    const results = (await deno("contract", join(dir, "contract.db"))) as ContractResult[];
    expect(results.map((r) => r.name)).toEqual(CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("two processes claiming one call on one database: exactly one claims it", async () => {
    const db = join(dir, "race.db");
    const outcomes = (await Promise.all([deno("claim", db, "t", "pay"), deno("claim", db, "t", "pay")])) as {
      status: string;
    }[];
    expect(outcomes.map((o) => o.status).sort()).toEqual(["claimed", "running"]);
  });
});

describe("Deno KV: two processes answering the same approvals at the same instant", () => {
  let file = "";
  beforeAll(async () => {
    file = join(dir, "kv-approval.deno.mjs");
    writeFileSync(file, await bundleEntry("kv-approval-entry-deno.ts"));
  }, 60_000);

  const deno = (...args: string[]) => denoOnce(file, dir, args);

  test("each call runs exactly once, and neither process ever sees 'database is locked'", async () => {
    const n = 24;
    const db = join(dir, "approve.db");
    const log = join(dir, "transfers.log");
    writeFileSync(log, "");
    const bodies = join(dir, "bodies.json");
    writeFileSync(bodies, JSON.stringify(await deno("pause", db, log, String(n))));
    const startAt = String(Date.now() + 4_000);
    type End = { threadId: string; error?: { code?: string; message?: string }; finished: boolean };
    const [a, b] = (await Promise.all([
      deno("approve", db, log, bodies, startAt),
      deno("approve", db, log, bodies, startAt),
    ])) as End[][];
    const ran = readFileSync(log, "utf8").split("\n").filter(Boolean);
    const ends = [...a!, ...b!];
    expect(ends.filter((e) => /locked/.test(e.error?.message ?? ""))).toEqual([]);
    // The one that lost the thread ran nothing and says so; nothing else went wrong.
    expect(ends.filter((e) => e.error && e.error.code !== "RESUME_IN_PROGRESS")).toEqual([]);
    for (let i = 0; i < n; i++)
      expect(
        ran.filter((t) => t === `t${i}`),
        `t${i}`,
      ).toHaveLength(1);
  }, 120_000);
});
