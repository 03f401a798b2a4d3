/**
 * The package as a new user gets it: `npm pack`, the tarball installed into fresh projects (one with
 * zod 4, one with zod 3.25 and the optional peers), from the npm cache when it can. Each project
 * typechecks an import of every entry with `skipLibCheck: false` under moduleResolution bundler,
 * node16 and nodenext, runs the README's quick start exactly as printed, and has one copy of zod
 * (and of rxjs). The first project installs no peer at all: every entry but agui and mcp must
 * typecheck without them, as the README says.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
const tsc = join(root, "node_modules/.bin/tsc");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The exact version the repo's lockfile holds (so it is in the npm cache after `npm ci`). */
function locked(name: string): string {
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json`);
  return version;
}
const zod4 = lock.packages["node_modules/zod4"]?.version as string;

const entries = Object.keys(pkg.exports as Record<string, unknown>)
  .filter((e) => e !== "./package.json")
  .map((e) => (e === "." ? "kaboo-workflows" : `kaboo-workflows/${e.slice(2)}`));
const PEER_ENTRIES: Record<string, string[]> = {
  "kaboo-workflows/agui": ["@ag-ui/client"],
  "kaboo-workflows/mcp": ["@modelcontextprotocol/sdk"],
  // Checked in neither project: the AI SDK's own .d.ts imports node:http, which these projects
  // (`types: []`, no @types/node) cannot resolve with skipLibCheck off.
  "kaboo-workflows/ai-sdk": ["ai"],
  "kaboo-workflows/otel": ["@opentelemetry/api"],
};

const readme = readFileSync(join(root, "README.md"), "utf8");

/** The first code block of `lang` in the README section that starts with `heading`. */
function readmeBlock(heading: string, lang: string): string {
  const section = readme.slice(readme.indexOf(heading));
  const code = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  if (!code) throw new Error(`README has no ${lang} block under ${heading}`);
  return code;
}

/** The README's quick start code, as printed. */
function quickStart(): string {
  return readmeBlock("## Quick start", "js");
}

/** The commands of a README shell block, comments dropped, one per line. */
function commands(heading: string): string[] {
  return readmeBlock(heading, "sh")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line && !line.startsWith("#"));
}

let work: string;
let tarball: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "kaboo-consumer-"));
  const out = execFileSync(npm, ["pack", "--json", "--pack-destination", work], { cwd: root, encoding: "utf8" });
  tarball = join(work, (JSON.parse(out) as { filename: string }[])[0]!.filename);
}, 60_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** npm install from the cache; falls back to the registry only for what the cache lacks. */
function install(dir: string): void {
  const args = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
  const offline = spawnSync(npm, [...args, "--offline"], { cwd: dir, encoding: "utf8" });
  if (offline.status === 0) return;
  const online = spawnSync(npm, [...args, "--prefer-offline"], { cwd: dir, encoding: "utf8" });
  if (online.status !== 0) throw new Error(`npm install failed:\n${offline.stderr}\n${online.stderr}`);
}

function project(name: string, deps: Record<string, string>, checked: string[]): string {
  const dir = join(work, name);
  mkdirSync(dir);
  const dependencies = { "kaboo-workflows": `file:${tarball}`, ...deps };
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, private: true, type: "module", dependencies }, null, 2),
  );
  install(dir);
  const imports = checked.map((e, i) => `import * as e${i} from "${e}";`).join("\n");
  writeFileSync(
    join(dir, "entries.ts"),
    `${imports}\nexport const all = [${checked.map((_, i) => `e${i}`).join(", ")}];\n`,
  );
  writeFileSync(join(dir, "quickstart.ts"), quickStart());
  return dir;
}

function typecheck(dir: string, moduleResolution: "bundler" | "node16" | "nodenext"): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: moduleResolution === "bundler" ? "ESNext" : moduleResolution,
      moduleResolution,
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: [],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    },
    files: ["entries.ts", "quickstart.ts"],
  };
  const file = `tsconfig.${moduleResolution}.json`;
  writeFileSync(join(dir, file), JSON.stringify(config));
  const r = spawnSync(tsc, ["-p", file], { cwd: dir, encoding: "utf8" });
  return `${r.stdout}${r.stderr}`.trim();
}

function runQuickStart(dir: string): string {
  const js = transformSync(quickStart(), { loader: "ts", format: "esm", target: "es2022" }).code;
  writeFileSync(join(dir, "quickstart.mjs"), js);
  return execFileSync(process.execPath, ["quickstart.mjs"], { cwd: dir, encoding: "utf8" }).trim();
}

/** Every installed copy of a package, wherever npm put it. */
function copies(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      const at = join(modules, entry);
      if (entry.startsWith("@")) {
        for (const sub of readdirSync(at)) visit(join(at, sub), `${entry}/${sub}`);
      } else visit(at, entry);
    }
  };
  const visit = (at: string, pkgName: string) => {
    if (pkgName === name) found.push(JSON.parse(readFileSync(join(at, "package.json"), "utf8")).version);
    walk(join(at, "node_modules"));
  };
  walk(join(dir, "node_modules"));
  return found;
}

describe.each([
  // TypeScript 5.9 for the node10 check (TypeScript 7, the repo's, removed that resolution).
  { name: "zod4-no-peers", deps: { zod: zod4, typescript: "5.9.3" }, peers: false },
  {
    name: "zod3-with-peers",
    deps: {
      zod: locked("zod"),
      "@ag-ui/client": locked("@ag-ui/client"),
      "@modelcontextprotocol/sdk": locked("@modelcontextprotocol/sdk"),
      "@opentelemetry/api": locked("@opentelemetry/api"),
    },
    peers: true,
  },
])("a new project: $name", ({ name, deps, peers }) => {
  let dir: string;
  const checked = entries.filter((e) => (PEER_ENTRIES[e] ?? []).every((peer) => peers && peer in deps));

  beforeAll(() => {
    dir = project(name, deps, checked);
  }, 120_000);

  test("one copy of zod (and of rxjs with the AG-UI peer)", () => {
    expect(copies(dir, "zod")).toEqual([deps.zod]);
    if (peers) expect(copies(dir, "rxjs")).toHaveLength(1);
  });

  test.each(["bundler", "node16", "nodenext"] as const)(
    "every entry and the quick start typecheck (%s, skipLibCheck off)",
    (mode) => {
      expect(typecheck(dir, mode)).toBe("");
    },
  );

  // Declared only where it applies (the project with TypeScript 5.9): a skipped test reads as a gap.
  if (!peers)
    test("moduleResolution node10 finds no types, and TypeScript says which settings do", () => {
      writeFileSync(join(dir, "node10.ts"), 'import { Agent } from "kaboo-workflows";\nexport const a = Agent;\n');
      const tsc59 = join(dir, "node_modules/.bin/tsc");
      const args = ["--noEmit", "--strict", "--module", "commonjs", "--moduleResolution", "node10", "node10.ts"];
      const r = spawnSync(tsc59, args, { cwd: dir, encoding: "utf8" });
      expect(r.status).not.toBe(0);
      expect(r.stdout).toMatch(/TS2307[\s\S]*'node16', 'nodenext', or 'bundler'/);
    });

  test("the quick start runs as printed and prints the answer", () => {
    expect(runQuickStart(dir).split("\n").at(-1)).toBe("Done: sent 5 to alice.");
  });
});

test("the tarball ships a LICENSE and source maps whose sources are in it", () => {
  const list = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean);
  const files = new Set(list.map((f) => f.replace(/^package\//, "")));
  expect(files.has("LICENSE")).toBe(true);
  const maps = [...files].filter((f) => f.endsWith(".map"));
  expect(maps.length).toBeGreaterThan(0);
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
  const missing = maps.flatMap((m) => {
    const map = JSON.parse(readFileSync(join(unpacked, "package", m), "utf8")) as { sources: string[] };
    return map.sources.map((s) => join(dirname(m), s)).filter((s) => !files.has(s.replace(/\\/g, "/")));
  });
  expect(missing).toEqual([]);
});

/** Runs one README command in `dir`, as printed, with the unpublished package name meaning the tarball. */
function shell(dir: string, line: string): { status: number | null; stdout: string; stderr: string } {
  // Only the package's own name is replaced (a registry install of it is not possible before it is published).
  const command = line.replace(/(^|\s)kaboo-workflows(?=\s|$)/g, `$1${tarball}`);
  // npm settings through the environment, so the command line stays the README's: the cache first
  // (offline once `npm ci` filled it), no audit or funding calls.
  const env = {
    ...process.env,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
  const r = spawnSync("sh", ["-c", command], { cwd: dir, encoding: "utf8", env });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

function freshDir(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  return dir;
}

describe("the README, as printed, in a new folder", () => {
  test("the quick start: at most 3 commands from `npm init -y`, none fails, the answer is printed", () => {
    const dir = freshDir("readme-quick-start");
    const lines = commands("## Quick start");
    expect(lines[0]).toBe("npm init -y");
    expect(lines.length).toBeLessThanOrEqual(3);
    const file = /^node (\S+)$/.exec(lines.at(-1) ?? "")?.[1];
    expect(file, "the last command runs the quick start file").toBeDefined();
    expect(readme).toContain(`where \`${file}\` holds`);
    writeFileSync(join(dir, file!), quickStart());
    const outputs = lines.map((line) => ({ line, ...shell(dir, line) }));
    for (const o of outputs) expect(o.status, `${o.line}\n${o.stderr}`).toBe(0);
    const run = outputs.at(-1)!;
    expect(run.stderr).toBe("");
    expect(run.stdout.split("\n")).toEqual(["Paused (interrupt): 1 approval to answer.", "Done: sent 5 to alice."]);
  }, 180_000);

  test("the install lines, run in order, leave one zod and one rxjs, and every entry loads", () => {
    const dir = freshDir("readme-install");
    expect(shell(dir, "npm init -y").status).toBe(0);
    const lines = commands("## Install");
    expect(lines.some((l) => l.includes("@ag-ui/client"))).toBe(true);
    for (const line of lines) {
      const r = shell(dir, line);
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
    }
    expect(copies(dir, "zod")).toHaveLength(1);
    expect(copies(dir, "rxjs")).toHaveLength(1);
    const load = entries.map((e) => `await import(${JSON.stringify(e)});`).join("\n");
    writeFileSync(join(dir, "load.mjs"), `${load}\nconsole.log("loaded");\n`);
    expect(execFileSync(process.execPath, ["load.mjs"], { cwd: dir, encoding: "utf8" }).trim()).toBe("loaded");
  }, 300_000);

  test("require() of the package: it loads where Node can require ES modules, else the error says ESM", () => {
    const dir = join(work, "readme-quick-start");
    const r = spawnSync(process.execPath, ["-e", 'console.log(typeof require("kaboo-workflows").Agent)'], {
      cwd: dir,
      encoding: "utf8",
    });
    if (r.status === 0) expect(r.stdout.trim()).toBe("function");
    else expect(r.stderr).toMatch(/ERR_REQUIRE_ESM|ES Module/);
  });
});
