/**
 * Governed approvals on the platforms' own storage: server grant stores (KabooGrants Durable
 * Objects in workerd, Deno KV in Deno) and the audit trail in the thread stores. The revocation test
 * goes across isolates: in workerd each request builds its own handler and stores (only the Durable
 * Objects are shared); in Deno two processes serve one KV file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventType, type BaseEvent, type Message } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuditEntry } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import type { Grant } from "../../src/grants/grant.js";
import { signGrant } from "../../src/grants/signing.js";
import { AUDIT_CONTRACT_CHECKS } from "../agent/audit-contract.js";
import type { ContractResult } from "../stores/contract.js";
import { bundleEntry } from "./bundle.js";
import { denoServer, kvFlags } from "./deno-process.js";
import { GOVERNANCE_SECRET } from "./governance-app.js";
import { GRANT_CHECKS } from "../stores/server-grant-contract.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-governance-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two ways into one shared storage (two isolates, or two processes). */
interface Deployment {
  a: (path: string, init?: RequestInit) => Promise<Response>;
  b: (path: string, init?: RequestInit) => Promise<Response>;
  stop(): Promise<void>;
}

async function workerd(persist?: string): Promise<Deployment> {
  const mf = new Miniflare({
    ...(persist ? { durableObjectsPersist: persist } : {}),
    modules: true,
    script: await bundleEntry("governance-entry-worker.ts"),
    compatibilityDate: "2025-04-01",
    durableObjects: {
      THREAD: { className: "KabooThread", useSQLite: true },
      GRANTS: { className: "KabooGrants", useSQLite: true },
    },
  });
  await mf.ready;
  const call = (path: string, init?: RequestInit) =>
    mf.dispatchFetch(`http://localhost${path}`, init as never) as unknown as Promise<Response>;
  return { a: call, b: call, stop: () => mf.dispose() };
}

const denoProcess = (file: string, db: string) => denoServer(file, dir, [db], { flags: kvFlags(dir) });

async function deno(): Promise<Deployment> {
  const file = join(dir, "governance-server.mjs");
  writeFileSync(file, await bundleEntry("governance-entry-deno.ts"));
  const db = join(dir, `kv-${crypto.randomUUID()}.sqlite`);
  const one = await denoProcess(file, db);
  const two = await denoProcess(file, db);
  return {
    a: (path, init) => fetch(one.url + path, init),
    b: (path, init) => fetch(two.url + path, init),
    stop: async () => void (await Promise.all([one.stop(), two.stop()])),
  };
}

const user = (content: string): Message => ({ id: crypto.randomUUID(), role: "user", content });

/** One AG-UI run through `call`; its events. */
async function run(
  call: Deployment["a"],
  who: string,
  body: Record<string, unknown>,
  path = "/agui",
): Promise<BaseEvent[]> {
  const res = await call(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": who },
    body: JSON.stringify({ runId: crypto.randomUUID(), state: {}, tools: [], context: [], ...body }),
  });
  expect(res.status).toBe(200);
  const events: BaseEvent[] = [];
  createParser({ onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent) }).feed(await res.text());
  return events;
}

const outcome = (events: BaseEvent[]) =>
  (
    events.find((e) => e.type === EventType.RUN_FINISHED) as {
      outcome?: { type: string; interrupts?: { id: string }[] };
    }
  )?.outcome;
const snapshotMessages = (events: BaseEvent[]) =>
  (events.filter((e) => e.type === EventType.MESSAGES_SNAPSHOT).at(-1) as { messages?: Message[] } | undefined)
    ?.messages ?? [];
const transfers = async (call: Deployment["a"]) =>
  ((await (await call("/ledger")).json()) as { transfers: { to: string; amount: number }[] }).transfers;

describe.each([
  ["workerd (Durable Objects)", () => workerd()],
  ["Deno (Deno KV, two processes)", deno],
] as const)("%s", (_name, deploy) => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy();
  }, 90_000);
  afterAll(() => d?.stop());

  test("the server grant store passes its checks", async () => {
    const results = (await (await d.a("/grant-checks")).json()) as ContractResult[];
    expect(results.map((r) => r.name)).toEqual(GRANT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("the thread store's audit trail passes the AuditLog contract", async () => {
    const results = (await (await d.a("/audit-contract")).json()) as ContractResult[];
    expect(results.map((r) => r.name)).toEqual(AUDIT_CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("a revoked 'always' grant, and its signed copy replayed, no longer skip the question in another isolate", async () => {
    const who = `ann-${crypto.randomUUID()}`;
    const remember = { kaboo_grants: [] };
    // On A: asked, approved for always; the grant goes into the server's record.
    const t1 = crypto.randomUUID();
    const first = [user("pay bob 5")];
    const asked = await run(d.a, who, { threadId: t1, messages: first, forwardedProps: remember });
    const interrupt = outcome(asked)?.interrupts?.[0]?.id ?? "";
    expect(interrupt).not.toBe("");
    const resume = [{ interruptId: interrupt, status: "resolved", payload: { approved: true, scope: "always" } }];
    await run(d.a, who, { threadId: t1, messages: snapshotMessages(asked), resume, forwardedProps: remember });
    const [grant] = (await (await d.b(`/grants?thread=x&principal=${who}`)).json()) as Grant[];
    expect(grant).toMatchObject({ tool: "transfer", scope: "always", principal: who, subjectKey: "to:bob" });

    // On B, a new thread: the grant covers the call, no question.
    const covered = await run(d.b, who, {
      threadId: crypto.randomUUID(),
      messages: [user("pay bob 7")],
      forwardedProps: remember,
    });
    expect(outcome(covered)?.type).toBe("success");
    expect((await transfers(d.b)).filter((t) => t.amount === 7)).toHaveLength(1);

    // Revoked on A; on B the next request asks again, even with the signed copy sent as the client's grant.
    const signed = await signGrant(grant as Grant, GOVERNANCE_SECRET);
    expect(await (await d.a(`/revoke?principal=${who}&tool=transfer`)).json()).toEqual({ removed: 1 });
    const replay = { kaboo_grants: [signed] };
    const after = await run(d.b, who, {
      threadId: crypto.randomUUID(),
      messages: [user("pay bob 9")],
      forwardedProps: replay,
    });
    expect(outcome(after)?.type).toBe("interrupt");
    expect((await transfers(d.b)).filter((t) => t.amount === 9)).toEqual([]);
    expect((await transfers(d.a)).filter((t) => t.amount === 9)).toEqual([]);
  }, 60_000);

  test("four eyes across isolates: asked on A, approved by bob on B and by carol on A, the wire runs once", async () => {
    const amount = 10_000 + Math.floor(Math.random() * 1e6);
    const threadId = crypto.randomUUID();
    const asked = await fourEyes(d.a, "ann", { threadId, messages: [user(`wire mallory ${amount}`)] });
    const bob = await fourEyes(d.b, "bob", answerAfter(threadId, asked));
    expect(outcome(bob)?.type).toBe("interrupt");
    expect((await allTransfers(d)).filter((t) => t.amount === amount)).toEqual([]);
    const carol = await fourEyes(d.a, "carol", answerAfter(threadId, bob));
    expect(outcome(carol)?.type).toBe("success");
    expect((await allTransfers(d)).filter((t) => t.amount === amount)).toHaveLength(1);
    const trail = (await (await d.b(`/audit?thread=${threadId}`)).json()) as AuditEntry[];
    expect(await verifyAuditTrail(trail)).toMatchObject({ ok: true });
    expect(trail.flatMap((e) => (e.kind === "decision" ? [e.principal] : []))).toEqual(["bob", "carol"]);
  }, 60_000);
});

/** What the tools did in every isolate of `d` (in workerd both ways in are one isolate). */
const allTransfers = async (d: Deployment) =>
  d.a === d.b ? transfers(d.a) : [...(await transfers(d.a)), ...(await transfers(d.b))];
const fourEyes = (call: Deployment["a"], who: string, body: Record<string, unknown>) =>
  run(call, who, body, "/agui-four-eyes");
/** The resume that answers the open question of `turn` with an approval. */
function answerAfter(threadId: string, turn: BaseEvent[]): Record<string, unknown> {
  const interruptId = outcome(turn)?.interrupts?.[0]?.id ?? "";
  return {
    threadId,
    messages: snapshotMessages(turn),
    resume: [{ interruptId, status: "resolved", payload: { approved: true } }],
  };
}

describe("workerd, restarted between two approvals", () => {
  test("the first approval lives in the Durable Object: after a restart the second one runs the wire, once", async () => {
    const persist = join(dir, `do-${crypto.randomUUID()}`);
    const threadId = crypto.randomUUID();
    const before = await workerd(persist);
    let bob: BaseEvent[];
    try {
      const asked = await fourEyes(before.a, "ann", { threadId, messages: [user("wire mallory 20000")] });
      bob = await fourEyes(before.a, "bob", answerAfter(threadId, asked));
      expect(outcome(bob)?.type).toBe("interrupt");
      expect(await transfers(before.a)).toEqual([]);
    } finally {
      await before.stop();
    }
    const after = await workerd(persist);
    try {
      const carol = await fourEyes(after.a, "carol", answerAfter(threadId, bob));
      expect(outcome(carol)?.type).toBe("success");
      expect(await transfers(after.a)).toEqual([{ to: "mallory", amount: 20000 }]);
      const trail = (await (await after.a(`/audit?thread=${threadId}`)).json()) as AuditEntry[];
      expect(await verifyAuditTrail(trail)).toMatchObject({ ok: true });
    } finally {
      await after.stop();
    }
  }, 90_000);
});
