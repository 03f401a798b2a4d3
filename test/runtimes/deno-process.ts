/**
 * Node-side: a bundled entry served by a Deno process on loopback (the entry prints its port as one
 * JSON line), for the runtime tests that talk to Deno over HTTP.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { ROOT } from "./bundle.js";

/** Deno KV on files in `dir`: the entry may read and write that folder. */
export const kvFlags = (dir: string) => ["--unstable-kv", `--allow-read=${dir}`, `--allow-write=${dir}`];

/** A Deno process serving an entry. */
export interface DenoServer {
  url: string;
  child: ChildProcess;
  /** Ends the process (at once when it already ended). */
  stop(): Promise<void>;
}

/**
 * Serves the bundled entry `file` with Deno, its cache and working folder in `dir`.
 * @param args - The entry's own arguments (e.g. its KV file).
 * @param o - `flags` besides loopback networking (default: {@link kvFlags}); `children` to keep the process in.
 */
export async function denoServer(
  file: string,
  dir: string,
  args: string[] = [],
  o: { flags?: string[]; children?: ChildProcess[] } = {},
): Promise<DenoServer> {
  const flags = [...(o.flags ?? kvFlags(dir)), "--allow-net=127.0.0.1", "--no-prompt", "--no-config", "--no-npm"];
  const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["run", ...flags, "--no-remote", file, ...args], {
    cwd: dir,
    env: { ...process.env, DENO_DIR: join(dir, "deno-cache"), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  o.children?.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`deno exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
  });
  const stop = () =>
    new Promise<void>((r) => (child.exitCode !== null ? r() : (child.once("exit", () => r()), child.kill())));
  return { url: `http://127.0.0.1:${port}`, child, stop };
}

/**
 * Runs the bundled entry `file` once with Deno KV on files in `dir`, and reads the JSON of the last
 * line it printed. With `timeoutMs`, a process still running after that long is killed (and the call rejects).
 */
export async function denoOnce(file: string, dir: string, args: string[], timeoutMs = 0): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    join(ROOT, "node_modules/.bin/deno"),
    ["run", ...kvFlags(dir), "--no-prompt", "--no-config", "--no-npm", "--no-remote", file, ...args],
    {
      cwd: dir,
      env: { ...process.env, DENO_DIR: join(dir, "deno-cache"), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: "SIGKILL",
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as unknown;
}
