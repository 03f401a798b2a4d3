#!/usr/bin/env node
// Installs this example's own tree (npm ci, from the npm cache when it can), links the package
// being developed (`kaboo-workflows` → the repository root, built by `npm run build`), bundles the
// page with esbuild and, run directly, serves it on loopback: `node examples/copilotkit/build.mjs`.
// The end-to-end test (e2e/copilotkit.e2e.test.ts) uses the same functions.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const exampleDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(exampleDir, "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** `npm ci` when the lockfile changed since the last install; then links the package under development. */
export function installExample() {
  const lock = readFileSync(join(exampleDir, "package-lock.json"), "utf8");
  const stamp = join(exampleDir, "node_modules/.kaboo-installed-lock");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== lock) {
    const args = ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
    let r = spawnSync(npm, [...args, "--offline"], { cwd: exampleDir, encoding: "utf8" });
    if (r.status !== 0) r = spawnSync(npm, [...args, "--prefer-offline"], { cwd: exampleDir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`npm ci in examples/copilotkit failed:\n${r.stderr}`);
    writeFileSync(stamp, lock);
  }
  // An app would `npm install kaboo-workflows @ag-ui/client`; here the repository is the package,
  // and its own node_modules supplies @ag-ui/client 1.0 (CopilotKit keeps its 0.0.59 copy).
  const link = join(exampleDir, "node_modules/kaboo-workflows");
  rmSync(link, { recursive: true, force: true });
  symlinkSync(repoRoot, link, "dir");
}

/** Bundles the page into `outdir` (index.html, main.js, main.css and fonts). */
export async function bundleExample(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(exampleDir, "src/main.tsx")],
    absWorkingDir: exampleDir,
    bundle: true,
    format: "esm",
    jsx: "automatic",
    target: "es2022",
    outdir,
    define: { "process.env.NODE_ENV": '"production"' },
    loader: { ".woff": "file", ".woff2": "file", ".ttf": "file" },
    logLevel: "error",
  });
  writeFileSync(join(outdir, "index.html"), readFileSync(join(exampleDir, "index.html")));
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** Serves `outdir` on 127.0.0.1 (port 0: any free one). @returns the server and its URL. */
export async function serveExample(outdir, port = 0) {
  const server = createServer((req, res) => {
    const path = join(outdir, !req.url || req.url === "/" ? "index.html" : decodeURIComponent(req.url.split("?")[0]));
    if (!path.startsWith(outdir + sep) || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
  });
  await new Promise((ok) => server.listen(port, "127.0.0.1", ok));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outdir = join(repoRoot, ".tmp/copilotkit");
  installExample();
  await bundleExample(outdir);
  const { url } = await serveExample(outdir, Number(process.env.PORT ?? 5174));
  console.log(`examples/copilotkit: ${url}`);
}
