/**
 * The edge app of the governance tests (workerd and Deno): the AG-UI handler with a thread store, a
 * server grant store and an audit trail on the platform's storage, plus routes to revoke, list
 * grants, read what the tools did and run the framework-free contracts. The tools' record is module
 * state on purpose: it is this test server's memory, not the package's.
 */
import type { AuditLog } from "../../src/agent/audit/audit.js";
import { createAguiHandler } from "../../src/agui/index.js";
import type { PrincipalGrantStore } from "../../src/stores/principal-grants.js";
import type { ThreadStore } from "../../src/stores/thread-store.js";
import { runAuditContract } from "../agent/audit-contract.js";
import type { Agent } from "../../src/index.js";
import { bankAgent, fourEyes, newBank, type Bank } from "../fixtures/bank.js";
import { capturingLogger } from "../fixtures/logger.js";
import { edgeBank } from "./agui-agent.js";
import { runGrantChecks } from "../stores/server-grant-contract.js";

export const GOVERNANCE_SECRET = "governance-secret";

const ledger = newBank();
const logger = capturingLogger(true);

/** "wire <name> <amount>" → a transfer that needs two of bob, carol and dan, never the requester. */
const fourEyesBank = (bank: Bank): Agent =>
  bankAgent(bank, {
    gate: { remember: false, approvals: fourEyes, agentName: "" },
    done: "done",
    otherwise: "hi",
    result: () => "sent",
  });

/** What one instance of the app (one isolate, one process) is built on. */
export interface GovernanceParts {
  store: ThreadStore;
  grantStore: PrincipalGrantStore;
  /** Makes a fresh grant store over the same storage (for the contract's second instance). */
  newGrantStore: () => PrincipalGrantStore;
  newAudit: () => AuditLog;
}

/**
 * One handler instance over the given storage. `x-user` names the principal (a test stand-in for
 * the host's verified session).
 */
export function governanceApp(parts: GovernanceParts): (request: Request) => Promise<Response> {
  const handler = createAguiHandler({
    agent: (_, { secret }) => edgeBank(ledger, { secret }),
    stores: { thread: parts.store, grants: parts.grantStore },
    trust: { secret: GOVERNANCE_SECRET, principal: (request) => request.headers.get("x-user") ?? "" },
    timing: { heartbeatMs: 0 },
    logger,
  });
  const fourEyes = createAguiHandler({
    agent: () => fourEyesBank(ledger),
    stores: { thread: parts.store, audit: parts.newAudit() },
    trust: { principal: (request) => request.headers.get("x-user") ?? "" },
    timing: { heartbeatMs: 0 },
    logger,
  });
  return async (request) => {
    const url = new URL(request.url);
    const principal = url.searchParams.get("principal") ?? undefined;
    switch (url.pathname) {
      case "/agui":
        return handler(request);
      case "/agui-four-eyes":
        return fourEyes(request);
      case "/audit":
        return Response.json(await parts.newAudit().entries(url.searchParams.get("thread") ?? ""));
      case "/revoke": {
        const id = url.searchParams.get("id");
        const tool = url.searchParams.get("tool") ?? undefined;
        const removed = id
          ? await parts.grantStore.revoke(id)
          : await parts.grantStore.revokePrincipal(principal, tool);
        return Response.json({ removed });
      }
      case "/grants":
        return Response.json(await parts.grantStore.grantsFor(url.searchParams.get("thread") ?? "", { principal }));
      case "/ledger":
        return Response.json(ledger);
      case "/audit-contract":
        return Response.json(await runAuditContract(parts.newAudit));
      case "/grant-checks":
        return Response.json(await runGrantChecks(parts.newGrantStore));
      default:
        return new Response("not found", { status: 404 });
    }
  };
}
