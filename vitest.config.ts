/**
 * Test projects: `unit` (Node), `edge-postgres` (edge tests on the PostgreSQL store), `browser` (real
 * Chromium through Playwright), `runtimes` (the built package in Chromium, workerd and Deno) and `e2e`
 * (the demo page driven by Playwright).
 * Chromium: $CHROMIUM_PATH, else `chromium`/`chromium-browser` on PATH, else Playwright's own.
 */
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";
import { CHROMIUM_ARGS, findChromium } from "./scripts/chromium.mjs";
import { installStrandsOrWarn } from "./test/strands/install.js";

/**
 * The edge tests the `edge-postgres` project runs on the PostgreSQL store. Left out: tests whose timing
 * assumes a store answering within a few ms (disconnect, hung-tool) and stateless ones.
 */
const EDGE_ON_POSTGRES = [
  "answers-ledger",
  "audit.attacks",
  "body-limit.attacks",
  "cancel.attacks",
  "edge-store",
  "history.attacks",
  "principal",
  "proto-key.attacks",
  "quorum.attacks",
  "races.attacks",
  "reattach.attacks",
  "request-bounds",
  "rerun-log",
  "resume-entries.attacks",
  "run-again-lost.attacks",
  "sse-ids.attacks",
  "thread-run.attacks",
];

export default defineConfig(async () => {
  const executablePath = await findChromium();
  // test/strands' own package (the Strands SDK, installed there when missing): its browser entry for
  // strands.browser.test.ts, pre-bundled with the rest.
  const strandsSdk = installStrandsOrWarn();
  // More runs of the property tests that read it (`inject("propertyRuns")`; 0 = each test's default).
  const provide = { propertyRuns: Number(process.env.KABOO_PROPERTY_RUNS) || 0 };
  return {
    test: {
      projects: [
        {
          test: {
            name: "unit",
            environment: "node",
            provide,
            // Property tests and the dist/ bundle check take seconds; on a loaded CI machine several
            // times more than vitest's default 5 s. A test that must not hang races its own timer.
            testTimeout: 30_000,
            include: ["test/**/*.test.ts"],
            exclude: ["test/**/*.browser.test.ts", "test/runtimes/**", "**/node_modules/**"],
          },
        },
        {
          // Pre-bundled before the first test: a dependency Vite found only when a test imported it
          // made it re-optimise and reload the page mid-run on a cold cache (a fresh CI checkout),
          // which failed the test file. The scan starts from the browser tests alone: from the
          // default entries (every .html, the demo's included) it stops at the demo's package import.
          optimizeDeps: {
            entries: ["test/**/*.browser.test.ts"],
            include: [
              "@ag-ui/client",
              "@ag-ui/core",
              "@ag-ui/core/schemas",
              "@opentelemetry/api",
              "@opentelemetry/sdk-trace-base",
              "@strands-agents/sdk",
              "eventsource-parser",
              "fast-check",
              "fast-json-patch",
              "idb-keyval",
              "@isaacs/nonrecursive-glob-match",
              "rxjs",
              "zod",
              "zod/v4",
              "zod/v4/core",
              "zod/v4/mini",
            ],
          },
          resolve: { alias: { "@strands-agents/sdk": strandsSdk } },
          test: {
            name: "browser",
            include: ["test/**/*.browser.test.ts"],
            provide,
            browser: {
              enabled: true,
              headless: true,
              provider: playwright({
                launchOptions: { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS },
              }),
              instances: [{ browser: "chromium" as const }],
              screenshotFailures: false,
            },
          },
        },
        {
          // The edge's attack tests again, each `MemoryThreadStore` replaced by PostgresThreadStore on
          // PGlite (test/stores/memory-on-postgres.ts): forged history, replays, bounds, principals, races.
          test: {
            name: "edge-postgres",
            environment: "node",
            testTimeout: 60_000,
            // One PGlite per worker, not per file (its start costs seconds); each store keeps its threads apart.
            isolate: false,
            include: EDGE_ON_POSTGRES.map((name) => `test/agui/edge/${name}.test.ts`),
            alias: [
              {
                find: /^(\.\.\/)+src\/stores\/memory\.js$/,
                replacement: fileURLToPath(new URL("./test/stores/memory-on-postgres.ts", import.meta.url)),
              },
            ],
          },
        },
        {
          test: {
            name: "runtimes",
            environment: "node",
            include: ["test/runtimes/**/*.test.ts"],
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
        {
          test: {
            name: "e2e",
            environment: "node",
            include: ["e2e/**/*.e2e.test.ts"],
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
