// Runs a bundled bench script in Deno with Deno KV on a file in `dir` (shared by the Deno KV benches).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { root } from "./bundle.mjs";

/**
 * Runs `script` in Deno (KV on `dir`/kv.sqlite, reads and writes in `dir` only) and returns the JSON of its last line.
 * @param {string} script - The bundled script's path.
 * @param {string} dir - Its folder (the KV file and Deno's cache go there).
 * @param {string[]} args - Arguments after the KV file's path.
 * @returns {any} The parsed last line of its output.
 */
export function runDenoKv(script, dir, args) {
  const out = execFileSync(
    join(root, "node_modules/.bin/deno"),
    [
      "run",
      "--unstable-kv",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--no-prompt",
      "--no-config",
      script,
      join(dir, "kv.sqlite"),
      ...args,
    ],
    {
      env: { ...process.env, DENO_DIR: join(dir, "deno-cache"), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      encoding: "utf8",
    },
  );
  return JSON.parse(out.trim().split("\n").at(-1));
}
