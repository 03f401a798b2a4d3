// kabooPlugin against @strands-agents/sdk's own declarations: the SDK module is a StrandsSdk and the plugin
// is the SDK's Plugin, as tsc sees them with the real .d.ts (test/strands/node_modules, installed there when
// missing). Written and checked here, not in the root's tsconfig, which must typecheck without the SDK.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { loadStrands } from "./strands-sdk.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");

beforeAll(async () => {
  await loadStrands();
}, 180_000);

it("the SDK module and the plugin typecheck against the SDK's own types, and a wrong module does not", () => {
  const dir = join(here, ".tmp/types");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "check.ts"),
    `import * as strands from "../../node_modules/@strands-agents/sdk/dist/src/index.js";
import { kabooPlugin } from "../../../../src/strands/index.js";

const plugin: strands.Plugin = kabooPlugin(strands);
new strands.Agent({ plugins: [plugin] });
// @ts-expect-error not the SDK's module: its event classes are missing
kabooPlugin({ Agent: strands.Agent });
`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: "../../../../tsconfig.json",
      compilerOptions: { noEmit: true, rootDir: "../../../..", skipLibCheck: true, types: [] },
      files: ["check.ts"],
    }),
  );
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  let output = "";
  try {
    execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  expect(output).toBe("");
}, 120_000);
