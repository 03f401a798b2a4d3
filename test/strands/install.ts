// test/strands' own packages (the Strands SDK, zod 4; test/strands/package.json), installed with `npm ci` in
// this folder when missing. Used by loadStrands (Node tests) and by vitest.config.ts, which installs them
// before any test starts (so parallel test files never race one `npm ci`) and points the browser project at
// the SDK (strands.browser.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Where the SDK's package is installed. */
export const STRANDS_SDK_DIR = join(here, "node_modules/@strands-agents/sdk");

/**
 * Installs this folder's packages when the SDK is missing.
 * @returns {@link STRANDS_SDK_DIR}.
 */
export function installStrands(): string {
  if (!existsSync(join(STRANDS_SDK_DIR, "package.json")))
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "ignore" });
  return STRANDS_SDK_DIR;
}

/**
 * {@link installStrands} for vitest.config.ts: a failed install (no registry) is only warned, so the tests
 * that do not need the SDK still run (the Strands ones then fail on the missing package).
 * @returns {@link STRANDS_SDK_DIR}.
 */
export function installStrandsOrWarn(): string {
  try {
    return installStrands();
  } catch (error) {
    console.warn(`test/strands: npm ci failed, the Strands SDK is missing: ${String(error)}`);
    return STRANDS_SDK_DIR;
  }
}
