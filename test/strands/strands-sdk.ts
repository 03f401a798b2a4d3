// The real @strands-agents/sdk for these tests, from this folder's own package (test/strands/package.json),
// kept out of the root's dependency tree as bench/peers is: the SDK wants zod 4 (the root has zod 3 for
// @ag-ui/client) and declares Node >= 22 (it runs on Node 20, npm warns). Installed with `npm ci` here
// when missing (install.ts).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installStrands } from "./install.js";
import type { Strands } from "./strands-world.js";

export * from "./strands-world.js";

/** Loads the SDK (its Node entry), installing this folder's packages first when they are missing. */
export async function loadStrands(): Promise<Strands> {
  const entry = join(installStrands(), "dist/src/index.node.js");
  return (await import(pathToFileURL(entry).href)) as Strands;
}
