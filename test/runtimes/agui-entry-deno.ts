// Deno entry for the AG-UI interop test: serves on a free port and prints it as one JSON line.
import { app } from "./agui-app.js";

Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, app);
