/**
 * Server processes on one PostgreSQL database for the multi-process tests: a throwaway cluster
 * (test/stores/pg-server.ts), the schema and the tables the server script (postgres-process.ts)
 * records into, the script bundled with esbuild, and processes started from it. A test client's
 * requests carry `x-test-client`, so a process tells them from the ones its sweeper runs again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";
import { build } from "esbuild";
import pg from "pg";
import { fromNodePostgres, migrate, type PgQueryable } from "../../../src/stores/postgres.js";
import { startPostgres, type PgServer } from "../../stores/pg-server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Forwards a request to one process. */
export type Handle = (request: Request) => Promise<Response>;

/** One started process. */
export interface Proc {
  handle: Handle;
  child: ChildProcess;
}

/** The database, the bundle, and what starts processes on them. */
export interface Processes {
  db: PgQueryable;
  server: PgServer;
  /** Starts a process named `name` with more environment (RUN_LEASE_MS, HOSTED, SWEEP_MS). */
  start(name: string, env?: Record<string, string>): Promise<Proc>;
  /** Kills every process, stops the cluster, removes the bundle. */
  stop(): Promise<void>;
}

/**
 * Starts the cluster, migrates it, makes the test tables and bundles the server script.
 *
 * @param root - The repository (where the bundle goes, so its package imports resolve). Default: this file's.
 */
export async function processes(root = ROOT): Promise<Processes> {
  const server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  const db = fromNodePostgres(pool);
  await migrate(db);
  for (const table of [
    "test_transfers (process text NOT NULL, payee text NOT NULL, amount integer NOT NULL)",
    "test_started (process text NOT NULL, payee text NOT NULL)",
    "test_replays (process text NOT NULL, body text NOT NULL)",
  ])
    await db.query(`CREATE TABLE ${table}`, []);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  // In the repository, so the bundle's package imports (pg, hono, zod…) resolve from node_modules.
  const bundle = join(root, ".tmp", `postgres-process-${crypto.randomUUID()}.mjs`);
  await build({
    entryPoints: [join(root, "test/agui/edge/postgres-process.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    target: "node20",
    outfile: bundle,
    logLevel: "silent",
  });
  const children: ChildProcess[] = [];
  const start = (name: string, env: Record<string, string> = {}): Promise<Proc> => {
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, ...env, DATABASE_URL: server.url, NAME: name },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d) => (err += String(d)));
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`process ${name} did not start: ${err}`)), 30_000);
      child.once("exit", (code, signal) => fail(new Error(`process ${name} exited ${code ?? signal}: ${err}`)));
      child.stdout!.on("data", (d) => {
        const port = /listening (\d+)/.exec(String(d))?.[1];
        if (!port) return;
        clearTimeout(timer);
        const target = `http://127.0.0.1:${port}/agui`;
        const handle: Handle = async (r) => {
          const headers = new Headers(r.headers);
          headers.set("x-test-client", "1");
          return fetch(target, { method: r.method, headers, body: await r.text() });
        };
        ok({ handle, child });
      });
    });
  };
  const stop = async () => {
    for (const child of children) child.kill("SIGKILL");
    await pool.end();
    server.stop();
    rmSync(bundle, { force: true });
  };
  return { db, server, start, stop };
}

/** One SSE frame: its id and its event. */
export interface Frame {
  id: string | undefined;
  event: { type: string; [key: string]: unknown };
}

/** A response's SSE frames, to its end or until it breaks off (its process died); each is also handed to `seen`. */
export async function frames(res: Response, seen: (f: Frame) => void = () => undefined): Promise<Frame[]> {
  const out: Frame[] = [];
  const parser = createParser({
    onEvent: (m) => {
      const frame = { id: m.id, event: JSON.parse(m.data) as Frame["event"] };
      out.push(frame);
      seen(frame);
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  } catch {
    // Broken off: what came before stands.
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (polling every 25 ms), or fails after `ms`. */
export async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}
