/**
 * `npm run demo`: the Vite dev server for demo/ (a banking assistant running an agent with the
 * scripted model in the browser). Loopback only; the next free port if 5173 is taken.
 */
import { defineConfig } from "vite";

export default defineConfig({
  root: "demo",
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1", port: 4173, strictPort: false },
  build: { outDir: "../.tmp/demo-dist", emptyOutDir: true },
  // Pre-bundled at start-up: a dependency found only when the page first imports it would make
  // Vite re-optimise and reload the page mid-conversation.
  optimizeDeps: {
    include: [
      "@ag-ui/client",
      "@ag-ui/core",
      "rxjs",
      "zod/v4",
      "idb-keyval",
      "minimatch",
      "fast-json-patch",
      "eventsource-parser",
    ],
  },
});
