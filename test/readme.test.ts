/** Keeps the README true: its quick start runs as written, and it shows the two commands. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

test("the README shows the two commands", () => {
  expect(readme).toContain("npm ci && npm run demo");
  expect(readme).toContain("npm ci && npm test");
});

test("the quick start runs as written and pauses, then runs the call once", async () => {
  const section = readme.slice(readme.indexOf("## Quick start"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeDefined();
  expect(code!.split("\n").length).toBeLessThanOrEqual(26);
  const src = (p: string) => pathToFileURL(join(root, "src", p)).href;
  const runnable = code!
    .replace('from "kaboo-workflows/hooks"', `from "${src("hooks/index.ts")}"`)
    .replace('from "kaboo-workflows"', `from "${src("index.ts")}"`)
    .replace('console.log(messageText(result.message)); // "Done: sent 5 to alice."', "export { result, saved };");
  const dir = join(root, ".tmp");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `readme-quickstart-${process.pid}.ts`);
  writeFileSync(file, runnable);
  const mod = (await import(pathToFileURL(file).href)) as {
    result: { stopReason: string; message: { content: { text?: string }[] } };
    saved: string;
  };
  expect(mod.result.stopReason).toBe("endTurn");
  expect(mod.result.message.content[0]?.text).toBe("Done: sent 5 to alice.");
  expect(JSON.parse(mod.saved).interrupts).toMatchObject({ version: 1, activated: true });
});
