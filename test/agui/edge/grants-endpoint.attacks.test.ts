// The grants endpoint attacked: a body far larger than any revoke is refused unread (413) whether
// it declares its length or streams it; malformed and prototype-keyed bodies are a 400; one
// person's revoke of another's grant id removes nothing.
import { describe, expect, test } from "vitest";
import { createGrantsHandler } from "../../../src/agui/index.js";
import { grantId } from "../../../src/grants/grant.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";
import { signGrant } from "../../../src/grants/signing.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";

const quiet = { warn: () => {}, error: () => {} };

function setup() {
  const grantStore = new MemoryGrantStore();
  const handle = createGrantsHandler({ grantStore, principal: (r) => r.headers.get("x-user") ?? "", logger: quiet });
  return { grantStore, handle };
}

const postAs = (user: string, body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://edge.test/grants", {
    method: "POST",
    headers: { "x-user": user, ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);

describe("the grants endpoint, attacked", () => {
  test("a body over the limit is 413 and revokes nothing, declared or streamed", async () => {
    const s = setup();
    await s.grantStore.grant({ tool: "transfer", subjectKey: "to:bob", scope: "always", principal: "ann" });
    const big = JSON.stringify({ revoke: { all: true }, pad: "x".repeat(2 * 1024 * 1024) });
    expect((await s.handle(postAs("ann", big))).status).toBe(413);
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 64) c.enqueue(chunk);
        else c.close();
      },
    });
    expect((await s.handle(postAs("ann", stream))).status).toBe(413);
    expect(sent).toBeLessThan(64);
    expect(await s.grantStore.list()).toHaveLength(1);
  });

  test("malformed bodies are 400; another person's grant id removes nothing", async () => {
    const s = setup();
    const bob = await s.grantStore.grant({ tool: "transfer", subjectKey: "to:x", scope: "always", principal: "bob" });
    for (const bad of ["not json", "null", "[]", '{"revoke":"all"}', '{"__proto__":{"revoke":{"all":true}}}']) {
      expect((await s.handle(postAs("ann", bad))).status).toBe(400);
    }
    const r = await s.handle(postAs("ann", JSON.stringify({ revoke: { id: grantId(bob) } })));
    expect(await r.json()).toEqual({ removed: 0 });
    expect(await s.grantStore.list()).toHaveLength(1);
  });

  test("revoked, a signed copy sent by the client is ignored; granted again, it covers again; revoked again, it asks", async () => {
    const bank = newBank();
    const grantStore = new MemoryGrantStore();
    const secret = "s".repeat(32);
    const principal = (r: Request) => r.headers.get("x-user") ?? "";
    const handle = bankHandler(bank, {
      stores: { thread: new MemoryThreadStore(), grants: grantStore },
      trust: { secret, principal },
    });
    const grants = createGrantsHandler({ grantStore, principal, logger: quiet });
    const ann = { "x-user": "ann" };
    const approveAlways = async (threadId: string) => {
      const { turn } = await pause(handle, threadId, "pay bob 5", ann);
      const done = await send(handle, resumeBody(threadId, turn, { approved: true, scope: "always" }), ann);
      expect(done.outcome).toBe("success");
    };
    const next = (threadId: string, sent: unknown[] = []) =>
      send(
        handle,
        input({
          threadId,
          messages: [{ id: "m", role: "user", content: "pay bob 6" }],
          forwardedProps: { kaboo_grants: sent },
        }),
        ann,
      );
    await approveAlways("t1");
    const [held] = await grantStore.list();
    expect(held).toBeDefined();
    const copy = await signGrant(held!, secret);
    const revoke = (body: unknown) => grants(postAs("ann", JSON.stringify(body))).then((r) => r.json());
    expect(await revoke({ revoke: { id: grantId(held!) } })).toEqual({ removed: 1 });
    expect((await next("t2", [copy])).outcome).toBe("interrupt");
    await approveAlways("t3");
    expect((await next("t4")).outcome).toBe("success");
    expect(await revoke({ revoke: { id: grantId(held!) } })).toEqual({ removed: 1 });
    expect((await next("t5", [copy])).outcome).toBe("interrupt");
    expect(bank.transfers.map((t) => t.amount)).toEqual([5, 5, 6]);
  });
});
