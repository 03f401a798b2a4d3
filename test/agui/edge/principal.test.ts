/**
 * The principal lookup fails closed: only a non-empty string is a person. Anything else, or a
 * throw, answers 401 in plain words before a byte of the body is read.
 */
import { describe, expect, test } from "vitest";
import { UnauthenticatedError } from "../../../src/errors.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { bankHandler, newBank, pause } from "./fixtures.js";
import { input } from "../helpers.js";

/** A POST whose body records whether anyone read it. */
function watchedPost(body: unknown): { request: Request; read: () => boolean } {
  let pulled = false;
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulled = true;
        controller.enqueue(bytes);
        controller.close();
      },
      // No read ahead: pull runs only when someone reads.
    },
    { highWaterMark: 0 },
  );
  const request = new Request("http://edge.test/agui", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
    duplex: "half",
  } as RequestInit);
  return { request, read: () => pulled };
}

const say = (text: string) =>
  input({ messages: [{ id: "u1", role: "user", content: text }], forwardedProps: { kaboo_grants: [] } });

describe("principal fails closed", () => {
  const cases: [string, () => unknown, RegExp][] = [
    ["undefined (a session?.user with no session)", () => undefined, /no signed-in user was found/],
    ["null", () => null, /no signed-in user was found/],
    ['""', () => "", /empty user id/],
    ["a number", () => 42, /gave a number instead of a user id/],
    ["a list", () => ["alice"], /gave a list instead of a user id/],
    ["a throw", () => Promise.reject(new Error("cookie expired")), /could not tell \(it failed\)/],
  ];
  for (const [name, lookup, words] of cases)
    test(`a lookup giving ${name} is 401, the body unread, the tool never run`, async () => {
      for (const store of [undefined, new MemoryThreadStore()]) {
        const bank = newBank();
        const handle = bankHandler(bank, {
          trust: { secret: "s", principal: lookup as () => string },
          ...(store ? { stores: { thread: store } } : {}),
        });
        const { request, read } = watchedPost(say("pay bob 5"));
        const res = await handle(request);
        expect(res.status).toBe(401);
        const body = (await res.json()) as { error: string; detail: string };
        expect(body.error).toBe("unauthenticated");
        expect(body.detail).toMatch(/^This endpoint needs to know who the request is for/);
        expect(body.detail).toMatch(words);
        expect(read()).toBe(false);
        expect(bank.transfers).toEqual([]);
      }
    });

  test("a lookup that throws UnauthenticatedError: its words for the client are the 401's detail", async () => {
    const handle = bankHandler(newBank(), {
      trust: {
        secret: "s",
        principal: () => {
          throw new UnauthenticatedError("Send an x-kaboo-user header.");
        },
      },
    });
    const res = await handle(watchedPost(say("pay bob 5")).request);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: "unauthenticated",
      detail: "This endpoint needs to know who the request is for: Send an x-kaboo-user header.",
    });
  });

  test("a thread paused for a person cannot be taken over through a lookup that found no one", async () => {
    const store = new MemoryThreadStore();
    let who: string | undefined = "alice";
    const bank = newBank();
    const handle = bankHandler(bank, {
      stores: { thread: store },
      trust: { secret: "s", principal: () => who as string },
    });
    await pause(handle, "t-owned", "pay bob 5");
    who = undefined;
    const { request } = watchedPost(say("pay mallory 500"));
    expect((await handle(request)).status).toBe(401);
    expect(bank.transfers).toEqual([]);
  });

  test("a non-empty string is the person; no lookup at all means anonymous by design", async () => {
    const alice = bankHandler(newBank(), { trust: { secret: "s", principal: () => "alice" } });
    expect((await alice(watchedPost(say("hi")).request)).status).toBe(200);
    const open = bankHandler(newBank(), { trust: { secret: "s" } });
    expect((await open(watchedPost(say("hi")).request)).status).toBe(200);
  });
});
