// The grants endpoint a page's grants panel calls: a person lists and revokes only their own grants
// in the server's store, and a revocation holds on the very next AG-UI request.
import { describe, expect, test } from "vitest";
import { createGrantsHandler } from "../../../src/agui/index.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { PrincipalGrantStore, type PrincipalGrantBackend } from "../../../src/stores/principal-grants.js";
import type { Grant } from "../../../src/grants/grant.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";
import { input } from "../helpers.js";

const who = (request: Request) => request.headers.get("x-user") ?? "";
const call = (handle: (r: Request) => Promise<Response>, user: string | undefined, body?: unknown) =>
  handle(
    new Request("http://edge.test/grants", {
      method: body === undefined ? "GET" : "POST",
      headers: user ? { "x-user": user } : {},
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  ).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as Record<string, unknown> }));

function memoryBackend(): PrincipalGrantBackend {
  const rows = new Map<string, Map<string, Grant>>();
  const of = (p: string) => rows.get(p) ?? rows.set(p, new Map()).get(p)!;
  return {
    list: async (p) => [...of(p).values()],
    put: async (p, id, g) => void of(p).set(id, g),
    remove: async (p, ids) => ids.filter((id) => of(p).delete(id)).length,
    clear: async (p) => of(p).clear(),
    principals: async () => [...rows.keys()],
  };
}

describe.each([
  ["MemoryGrantStore", () => new MemoryGrantStore()],
  ["a per-principal server store", () => new PrincipalGrantStore(memoryBackend())],
])("the grants endpoint over %s", (_name, makeStore) => {
  test("lists and revokes only the requester's grants", async () => {
    const grantStore = makeStore();
    await grantStore.grant({ tool: "transfer", subjectKey: "to:bob", scope: "always", principal: "ann" });
    await grantStore.grant({ tool: "search", scope: "always", principal: "ann" });
    const eve = await grantStore.grant({ tool: "transfer", scope: "always", principal: "eve" });
    const handle = createGrantsHandler({ grantStore, principal: who });
    const listed = await call(handle, "ann");
    expect(listed.status).toBe(200);
    expect((listed.body.grants as { tool: string; id: string }[]).map((g) => g.tool).sort()).toEqual([
      "search",
      "transfer",
    ]);
    // eve's grant id sent by ann removes nothing.
    const { grantId } = await import("../../../src/grants/grant.js");
    expect((await call(handle, "ann", { revoke: { id: grantId(eve) } })).body).toEqual({ removed: 0 });
    expect((await call(handle, "ann", { revoke: { tool: "transfer" } })).body).toEqual({ removed: 1 });
    expect((await call(handle, "ann", { revoke: { all: true } })).body).toEqual({ removed: 1 });
    expect(await grantStore.grantsFor("t", { principal: "eve" })).toHaveLength(1);
    expect((await call(handle, undefined)).status).toBe(401);
    expect((await call(handle, "ann", { revoke: {} })).status).toBe(400);
  });
});

test("a grant revoked through the endpoint no longer skips the question on the next run", async () => {
  const bank = newBank();
  const grantStore = new PrincipalGrantStore(memoryBackend());
  const handle = bankHandler(bank, {
    stores: { thread: new MemoryThreadStore(), grants: grantStore },
    trust: { principal: who },
  });
  const headers = { "x-user": "ann" };
  const { turn } = await pause(handle, "t1", "pay bob 5", headers);
  await send(handle, resumeBody("t1", turn, { approved: true, scope: "always" }), headers);
  const covered = await send(
    handle,
    input({
      threadId: "t2",
      messages: [{ id: "m", role: "user", content: "pay bob 6" }],
      forwardedProps: { kaboo_grants: [] },
    }),
    headers,
  );
  expect(covered.outcome).toBe("success");
  const grants = createGrantsHandler({ grantStore, principal: who });
  expect((await call(grants, "ann", { revoke: { tool: "transfer" } })).body).toEqual({ removed: 1 });
  const asked = await send(
    handle,
    input({
      threadId: "t3",
      messages: [{ id: "m", role: "user", content: "pay bob 7" }],
      forwardedProps: { kaboo_grants: [] },
    }),
    headers,
  );
  expect(asked.outcome).toBe("interrupt");
  expect(bank.transfers.map((t) => t.amount)).toEqual([5, 6]);
});
