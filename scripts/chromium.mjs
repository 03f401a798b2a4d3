// Finds a Chromium binary for the browser tests, the runtime proof and the demo e2e.
// Order: $CHROMIUM_PATH, Debian's `chromium` / `chromium-browser` on PATH, then Playwright's
// own download (only present on machines that could fetch it; this one cannot).
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Flags that keep headless Chromium quiet on a closed network and inside a root container. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

async function playwrightOwn() {
  try {
    const { chromium } = await import("playwright");
    const file = chromium.executablePath();
    return file && existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Chromium executable to use, or `undefined` when none is found.
 * A `CHROMIUM_PATH` that points nowhere is an error, not a silent fallback.
 */
export async function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable file.`);
    return fromEnv;
  }
  return which("chromium") ?? which("chromium-browser") ?? (await playwrightOwn());
}

/** Like {@link findChromium} but throws with the fix when nothing is found. */
export async function requireChromium() {
  const file = await findChromium();
  if (!file) {
    throw new Error(
      "No Chromium found. Install Debian's package (`apt-get install -y chromium`, as root) " +
        "or point CHROMIUM_PATH at a Chromium/Chrome binary; `node scripts/ensure-chromium.mjs` tries the install.",
    );
  }
  return file;
}
