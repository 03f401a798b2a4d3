/**
 * Four eyes attacked on time and scope: an approval after the request's deadline (the first
 * round's `expiresAt` holds for every round), an approver's edit or wider scope, the owner's new
 * turn over an open four-eyes question, and an approver's Stop or reattach of the owner's thread.
 */
import { describe, expect, test } from "vitest";
import { MemoryGrantStore } from "../../../src/grants/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { post, send } from "./fixtures.js";
import { fourEyesEdge } from "./four-eyes.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(ttlSeconds?: number) {
  const store = new MemoryThreadStore();
  const grantStore = new MemoryGrantStore();
  const approvals = { required: 2, eligible: (p: string) => ["bob", "carol"].includes(p), forbidRequester: true };
  const edge = fourEyesEdge({
    handler: { stores: { thread: store, grants: grantStore }, trust: { secret: "s3cret" } },
    bank: () => ({ gate: { subject: "key", approvals, secret: "s3cret", ttlSeconds, agentName: "" } }),
    asking: { forwardedProps: { kaboo_grants: [] } },
  });
  return { store, grantStore, ...edge };
}

describe("four eyes on time and scope, attacked", () => {
  test("an approval that completes the quorum after the request's deadline runs nothing", async () => {
    const s = setup(1);
    const asked = await s.ask("t");
    const bob = await s.answer("t", asked, "bob");
    expect(bob.outcome).toBe("interrupt");
    await sleep(1_100);
    const carol = await s.answer("t", bob, "carol");
    expect(carol.outcome === "interrupt").toBe(false);
    expect(s.transfers).toEqual([]);
  });

  test("an approver's edit never counts, and never changes what runs", async () => {
    const s = setup();
    const asked = await s.ask("t");
    const bob = await s.answer("t", asked, "bob", { approved: true, editedArgs: { to: "mallory", amount: 99_999 } });
    expect(s.transfers).toEqual([]);
    const next = bob.outcome === "interrupt" ? bob : asked;
    await s.answer("t", next, "carol");
    await s.answer("t", next, "bob");
    for (const t of s.transfers) expect(t).toEqual({ to: "mallory", amount: 20_000 });
    expect(s.transfers.length).toBeLessThanOrEqual(1);
  });

  test("approvers answering 'always' leave no grant: the next such wire asks all over again", async () => {
    const s = setup();
    const asked = await s.ask("t");
    const bob = await s.answer("t", asked, "bob", { approved: true, scope: "always" });
    const carol = await s.answer("t", bob, "carol", { approved: true, scope: "always" });
    expect(carol.outcome).toBe("success");
    expect(s.transfers).toHaveLength(1);
    expect(await s.grantStore.list()).toEqual([]);
    const again = await s.ask("t2");
    expect(again.outcome).toBe("interrupt");
    expect(s.transfers).toHaveLength(1);
  });

  test("the owner's new turn over an open four-eyes question ends it: a late approval runs nothing", async () => {
    const s = setup();
    const asked = await s.ask("t");
    const bob = await s.answer("t", asked, "bob");
    const turn = await send(
      s.handle,
      input({
        threadId: "t",
        messages: [...asked.messages, { id: crypto.randomUUID(), role: "user", content: "never mind" }],
      }),
      s.as("ann"),
    );
    expect(turn.error).toBeUndefined();
    const carol = await s.answer("t", bob, "carol");
    expect(carol.error?.code).toBeDefined();
    expect(s.transfers).toEqual([]);
  });

  test("an approver may neither Stop nor watch the owner's thread", async () => {
    const s = setup();
    const asked = await s.ask("t");
    await s.answer("t", asked, "bob");
    expect((await s.handle(post({ kaboo_cancel: { threadId: "t" } }, s.as("bob")))).status).toBe(403);
    expect((await s.handle(post({ kaboo_connect: { threadId: "t" } }, s.as("bob")))).status).toBe(403);
  });
});
