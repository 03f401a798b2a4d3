/**
 * examples/ai-sdk end to end in Node: the AI SDK's own chat client (AbstractChat, DefaultChatTransport)
 * against the example's streamText handler, the approval answered with a scope through
 * addToolApprovalResponse, the transfer booked once, and an "always" approval not asked again.
 */
import { describe, expect, it } from "vitest";
import { loadExample } from "./example/load.js";

const ex = await loadExample();

/** A chat whose requests go straight to `handle`, as a person `user`. */
function chat(handle: (r: Request) => Promise<Response>, id: string, user = "ann") {
  const fetch = (async (url: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(new URL(String(url), "http://example.test"), init);
    request.headers.set("x-user", user);
    return handle(request);
  }) as typeof globalThis.fetch;
  return new ex.BankChat({ id, fetch });
}

const settle = async (c: InstanceType<typeof ex.BankChat>) => {
  for (let i = 0; i < 100 && c.status !== "ready"; i++) await new Promise((r) => setTimeout(r, 10));
};

describe("examples/ai-sdk", () => {
  it("asks, books the transfer once after the answer, and does not ask again after 'always'", async () => {
    const booked: { to: string; amount: number; idempotencyKey: string }[] = [];
    const handle = ex.createChatHandler({ booked });
    const first = chat(handle, "thread-1");
    await first.sendMessage({ text: "pay bob 5" });
    const [open] = first.openApprovals();
    expect(open).toMatchObject({ input: { to: "bob", amount: 5 }, reason: "Allow transfers to bob?" });
    expect(booked).toEqual([]);
    await first.answer(open!.id, "always");
    await settle(first);
    expect(booked).toMatchObject([{ to: "bob", amount: 5 }]);
    expect(first.texts().at(-1)).toBe("Sent 5 to bob.");
    // Another conversation (a reload, a new chat): the "always" grant covers bob, not carol.
    const next = chat(handle, "thread-2");
    await next.sendMessage({ text: "pay bob 7" });
    await settle(next);
    expect(next.openApprovals()).toEqual([]);
    expect(booked.map((b) => b.amount)).toEqual([5, 7]);
    await next.sendMessage({ text: "pay carol 3" });
    expect(next.openApprovals()).toHaveLength(1);
    // Another person is asked about bob: grants are per person.
    const other = chat(handle, "thread-3", "dan");
    await other.sendMessage({ text: "pay bob 1" });
    expect(other.openApprovals()).toHaveLength(1);
  });

  it("books nothing for a 'no', and the model reads the refusal", async () => {
    const booked: { to: string }[] = [];
    const handle = ex.createChatHandler({ booked: booked as never });
    const c = chat(handle, "thread-1");
    await c.sendMessage({ text: "pay bob 5" });
    await c.answer(c.openApprovals()[0]!.id, null);
    await settle(c);
    expect(booked).toEqual([]);
  });

  it("refuses a request that is not the chat client's", async () => {
    const handle = ex.createChatHandler();
    const response = await handle(new Request("http://example.test/api/chat", { method: "POST", body: "{}" }));
    expect(response.status).toBe(400);
  });
});
