// The grants endpoint attacked: a body far larger than any revoke is refused unread (413) whether
// it declares its length or streams it; malformed and prototype-keyed bodies are a 400; one
// person's revoke of another's grant id removes nothing.
import { describe, expect, test } from "vitest";
import { createGrantsHandler } from "../../../src/agui/index.js";
import { grantId } from "../../../src/grants/grant.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";

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
});
