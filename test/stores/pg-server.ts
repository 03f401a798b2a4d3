/**
 * A throwaway PostgreSQL cluster on 127.0.0.1 for the real-server tests (TOOLCHAIN.md, "PostgreSQL on
 * loopback"): Debian's server binaries, run as the `postgres` user when the tests run as root, a free
 * port, `fsync=off`, stopped and removed by `stop()`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running cluster. */
export interface PgServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  port: number;
  /** The URL of another database on the same cluster. */
  urlOf(database: string): string;
  /** Stops the cluster and removes its files. */
  stop(): void;
}

/** The folder of Debian's PostgreSQL server binaries (the newest version), or `undefined`. */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Starts a fresh cluster (about 3 s).
 *
 * @throws When the server binaries are missing: the message says how to install them.
 */
export async function startPostgres(): Promise<PgServer> {
  const bin = postgresBinaries();
  if (!bin)
    throw new Error(
      "PostgreSQL's server binaries are missing (no /usr/lib/postgresql/*/bin/initdb): the real-server tests need them. " +
        "Install Debian's package: `apt-get install -y postgresql` (as root; .ci/run does so when they are missing).",
    );
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "kaboo-pg-"));
  if (root)
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"]).toString()),
      Number(execFileSync("id", ["-g", "postgres"]).toString()),
    );
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]] : [join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  let stopped = false;
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: urlOf("postgres"),
    port,
    urlOf,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
