/**
 * The edge app the AG-UI interop test runs in workerd and Deno: the handler on /agui (no secret)
 * and /agui-secret (grants must be signed with INTEROP_SECRET), and GET /ledger to read back what
 * the tools did. The ledger is module state on purpose: it is this test server's memory, not the
 * package's.
 */
import { createAguiHandler } from "../../src/agui/index.js";
import { newBank } from "../fixtures/bank.js";
import { edgeBank } from "./agui-agent.js";
import { capturingLogger } from "../fixtures/logger.js";

export const INTEROP_SECRET = "interop-secret";

const ledger = newBank();
const logger = capturingLogger(true);
// /agui runs in the development mode (no store, no secret): sessions unsealed, as before the edge issue.
const open = createAguiHandler({
  agent: () => edgeBank(ledger),
  timing: { heartbeatMs: 50 },
  logger,
  trust: { insecureDevelopmentMode: true },
});
const signed = createAguiHandler({
  agent: (_, { secret }) => edgeBank(ledger, { secret }),
  trust: { secret: INTEROP_SECRET },
  timing: { heartbeatMs: 50 },
  logger,
});

export async function app(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/agui") return open(request);
  if (path === "/agui-secret") return signed(request);
  if (path === "/ledger") return Response.json(ledger);
  return new Response("not found", { status: 404 });
}
