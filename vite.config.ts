/**
 * `npm run demo`: the Vite dev server for demo/ (a page running an agent with the scripted
 * model in the browser). Loopback only; the next free port if 5173 is taken.
 */
import { defineConfig } from "vite";

export default defineConfig({
  root: "demo",
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1", port: 4173, strictPort: false },
  build: { outDir: "../.tmp/demo-dist", emptyOutDir: true },
});
