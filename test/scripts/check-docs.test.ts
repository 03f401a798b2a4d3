/**
 * scripts/check-docs.mjs (a step of `npm test`) on a small docs tree of its own: it passes good pages and names
 * every broken link, missing heading, type error and quick start that drifted from the README, by page and line.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const work = mkdtempSync(join(tmpdir(), "kaboo-check-docs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const fence = "```";
const quickStart = `## Install\n\n${fence}sh\nnpm install kaboo-workflows zod\n${fence}\n\n${fence}js\nimport { Agent } from "kaboo-workflows";\nconsole.log(typeof Agent);\n${fence}\n`;

/** A repository with the real src/, node_modules and package.json, and the given docs pages. */
function repo(name: string, pages: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  for (const f of ["package.json", "tsconfig.json", "scripts/check-docs.mjs"])
    copyFileSync(join(root, f), join(dir, f));
  for (const d of ["src", "node_modules"]) symlinkSync(join(root, d), join(dir, d), "dir");
  writeFileSync(join(dir, "README.md"), `# kaboo\n\n${quickStart}`);
  for (const [path, text] of Object.entries({
    "docs/guide/quick-start.md": `# Quick start\n\n${quickStart}`,
    ...pages,
  })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const check = (dir: string) =>
  spawnSync(process.execPath, [join(dir, "scripts/check-docs.mjs")], { cwd: dir, encoding: "utf8" });

test("good pages pass: links to pages, headings and source files, a checked block, a cut prelude, a no-check fragment", () => {
  const dir = repo("good", {
    "docs/index.md": [
      "# Home",
      "",
      "See [the quick start](./guide/quick-start.md#install), [the agent](../src/index.ts) and [a person's grants](#a-person-s-grants).",
      "",
      "## A person's grants",
      "",
      `${fence}ts\ndeclare const n: number;\n// ---cut---\nimport { UserError } from "kaboo-workflows";\nconst e: Error = new UserError(String(n));\n${fence}`,
      "",
      `${fence}ts no-check\nagent.invoke(; // a fragment\n${fence}`,
    ].join("\n"),
  });
  const r = check(dir);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  // The TSDoc link check runs only where docs/api (TypeDoc) is installed: either line is a pass.
  expect(r.stdout).toMatch(/3 pages, 3 links, 3 code blocks type-checked, TSDoc links (resolve|not checked [^:]*): ok/);
}, 60_000);

test("a broken link, a missing heading, a type error and a drifted quick start each fail, named by page and line", () => {
  const dir = repo("bad", {
    "docs/index.md": [
      "# Home",
      "",
      "[gone](./guide/gone.md) and [no such heading](./guide/quick-start.md#installing)",
      "",
      `${fence}ts\nimport { InterruptHook } from "kaboo-workflows/hooks";\nnew InterruptHook([{ pattern: "pay", remember: "forever" }]);\n${fence}`,
    ].join("\n"),
    "docs/guide/quick-start.md": `# Quick start\n\n${quickStart.replace("typeof Agent", "Agent.name")}`,
  });
  const r = check(dir);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("docs/index.md:3: broken link ./guide/gone.md");
  expect(r.stderr).toContain("docs/index.md:3: no heading #installing in docs/guide/quick-start.md");
  expect(r.stderr).toMatch(/docs\/index\.md:7: error TS2322: Type '"forever"' is not assignable/);
  expect(r.stderr).toContain("docs/guide/quick-start.md: its first ```js block differs from the README's");
}, 60_000);
