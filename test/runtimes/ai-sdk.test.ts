/**
 * The AI SDK adapter in workerd (miniflare): the real `ai` package (`generateText` and `streamText`,
 * its own mock language model) bundled for a Worker, kabooToolApproval over the Durable Object grant
 * store and withLedger over the Durable Object thread store's ledger, driven over fetch like an app's
 * chat endpoint: asked, approved for the thread (a grant saved), the next call not asked; the same
 * approval replayed, and sent twice at once, runs the tool once. With a secret, an approval signed in
 * the Worker (signApprovalReason) counts; an altered scope or another person's replay is refused.
 * Four eyes: two approvers' signed approvals in one response run the call once; one is refused.
 * Edits: an invalid edit is refused; a valid one runs once with the edited arguments.
 */
import type { ModelMessage } from "ai";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { approvalReason, approvalsReason } from "../../src/ai-sdk/index.js";
import type { Grant } from "../../src/grants/grant.js";
import { bundleEntry } from "./bundle.js";

let mf: Miniflare;
beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    script: await bundleEntry("ai-sdk-entry-worker.ts", { browser: true }),
    compatibilityDate: "2025-04-01",
    durableObjects: {
      THREAD: { className: "KabooThread", useSQLite: true },
      GRANTS: { className: "KabooGrants", useSQLite: true },
    },
  });
  await mf.ready;
}, 60_000);
afterAll(() => mf?.dispose());

interface Reply {
  text: string;
  messages: ModelMessage[];
  /** The tool results the model was last sent. */
  toolResults: { toolCallId: string; output: { type: string; value?: unknown } }[];
}

async function get<T>(path: string): Promise<T> {
  return (await (await mf.dispatchFetch(`http://localhost${path}`)).json()) as T;
}

interface ChatBody {
  threadId: string;
  principal: string;
  messages: ModelMessage[];
  mode: string;
  signed?: boolean;
  approvals?: number;
}

async function post(body: ChatBody) {
  return mf.dispatchFetch("http://localhost/chat", { method: "POST", body: JSON.stringify(body) });
}

async function chat(body: ChatBody) {
  const res = await post(body);
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Reply;
}

/** The approval requests put to the person (the AI SDK also records automatic ones: `isAutomatic`). */
function requests(messages: readonly ModelMessage[]) {
  return messages.flatMap((m) =>
    m.role === "assistant" && typeof m.content !== "string"
      ? m.content.flatMap((p) => (p.type === "tool-approval-request" && p.isAutomatic !== true ? [p] : []))
      : [],
  );
}

describe.each(["generate", "stream"])("the AI SDK adapter in workerd (%sText)", (mode) => {
  test("asked, approved for the thread (a grant saved), the next call not asked; replays run once", async () => {
    const threadId = crypto.randomUUID();
    const principal = "alice";
    const send = (messages: ModelMessage[]) => chat({ threadId, principal, messages, mode });
    const runs = async () => (await get<{ transfer: number }>(`/runs?thread=${threadId}`)).transfer;

    expect(await get<{ process: string }>("/process")).toEqual({ process: "undefined" });
    const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
    const first = await send(pay);
    const [asked] = requests(first.messages);
    expect(asked).toMatchObject({ toolCallId: "call-1", reason: 'Allow a call to "transfer"?' });
    expect(await runs()).toBe(0);

    const answer: ModelMessage = {
      role: "tool",
      content: [
        {
          type: "tool-approval-response",
          approvalId: asked!.approvalId,
          approved: true,
          reason: approvalReason({ scope: "thread" }),
        },
      ],
    };
    const approved = [...pay, ...first.messages, answer];
    // The approval sent twice at once: one request runs the call; the other does not run it again.
    const both = await Promise.all([send(approved), send(approved)]);
    expect(await runs()).toBe(1);
    const second = both.find((r) => r.toolResults[0]?.output.type === "json");
    expect(second?.text).toBe("done");
    expect(second?.toolResults).toEqual([
      { toolCallId: "call-1", output: { type: "json", value: { sent: 5, to: "bob" } } },
    ]);
    const grants = await get<Grant[]>(`/grants?thread=${threadId}&principal=${principal}`);
    expect(grants).toMatchObject([{ tool: "transfer", scope: "thread", threadId, principal }]);
    expect(await get<Grant[]>(`/grants?thread=${threadId}&principal=mallory`)).toEqual([]);

    // The same approval replayed later: the recorded result, no second run.
    const replayed = await send(approved);
    expect(replayed.toolResults).toEqual(second?.toolResults);
    expect(await runs()).toBe(1);

    // The next call in this thread: covered by the grant, not asked, runs.
    const next = [...approved, ...(second?.messages ?? []), { role: "user", content: "and again" } as ModelMessage];
    const third = await send(next);
    expect(requests(third.messages)).toEqual([]);
    expect(third.toolResults).toMatchObject([{ toolCallId: "call-2" }]);
    expect(await runs()).toBe(2);

    // Another thread of the same person: the thread grant does not reach it.
    const elsewhere = await chat({ threadId: crypto.randomUUID(), principal, messages: pay, mode });
    expect(requests(elsewhere.messages)).toHaveLength(1);
  }, 60_000);
});

describe("signed answers in workerd", () => {
  test("an altered scope and another person's replay are refused (403, nothing runs, nothing granted); the signed answer runs once", async () => {
    const threadId = crypto.randomUUID();
    const mode = "generate";
    const body = (principal: string, messages: ModelMessage[]) => ({
      threadId,
      principal,
      messages,
      mode,
      signed: true,
    });
    const runs = async () => (await get<{ transfer: number }>(`/runs?thread=${threadId}`)).transfer;
    const grants = (principal: string) => get<Grant[]>(`/grants?thread=${threadId}&principal=${principal}`);
    const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
    const first = await chat(body("alice", pay));
    const [asked] = requests(first.messages);
    const sign = async (scope: string) => {
      const call = { toolCallId: "call-1", input: { to: "bob", cents: 5 }, scope };
      const res = await mf.dispatchFetch(`http://localhost/sign?thread=${threadId}&principal=alice`, {
        method: "POST",
        body: JSON.stringify(call),
      });
      return res.text();
    };
    const answer = (reason: string): ModelMessage[] => [
      ...pay,
      ...first.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: asked!.approvalId, approved: true, reason }],
      },
    ];
    const widened = JSON.stringify({ ...JSON.parse(await sign("once")), scope: "always" });
    const altered = await post(body("alice", answer(widened)));
    expect(altered.status).toBe(403);
    expect(await altered.json()).toMatchObject({ code: "APPROVAL_SIGNATURE_INVALID" });
    const signed = answer(await sign("thread"));
    const byMallory = await post(body("mallory", signed));
    expect(byMallory.status).toBe(403);
    expect(await runs()).toBe(0);
    expect(await grants("alice")).toEqual([]);
    expect((await chat(body("alice", signed))).toolResults).toMatchObject([{ toolCallId: "call-1" }]);
    expect(await runs()).toBe(1);
    expect((await grants("alice")).map((g) => g.scope)).toEqual(["thread"]);
    expect((await post(body("mallory", signed))).status).toBe(403);
    expect(await grants("mallory")).toEqual([]);
    expect(await runs()).toBe(1);
  }, 60_000);
});

describe("four eyes in workerd", () => {
  test("one approver is refused (403, nothing runs); two approvers' signed approvals run the call once", async () => {
    const threadId = crypto.randomUUID();
    const body = (messages: ModelMessage[]) => ({
      threadId,
      principal: "alice",
      messages,
      mode: "generate",
      approvals: 2,
    });
    const runs = async () => (await get<{ transfer: number }>(`/runs?thread=${threadId}`)).transfer;
    const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
    const first = await chat(body(pay));
    const [asked] = requests(first.messages);
    expect(asked?.reason).toBe('Allow a call to "transfer"? (needs approvals from 2 people)');
    const signedBy = async (principal: string) => {
      const call = { toolCallId: "call-1", input: { to: "bob", cents: 5 }, scope: "once" };
      const url = `http://localhost/sign?thread=${threadId}&principal=${principal}`;
      return (await mf.dispatchFetch(url, { method: "POST", body: JSON.stringify(call) })).text();
    };
    const answer = (reason: string): ModelMessage[] => [
      ...pay,
      ...first.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: asked!.approvalId, approved: true, reason }],
      },
    ];
    const one = await post(body(answer(approvalsReason([await signedBy("ann")]))));
    expect(one.status).toBe(403);
    expect(await one.json()).toMatchObject({ code: "APPROVAL_QUORUM_NOT_MET" });
    expect(await runs()).toBe(0);
    const two = answer(approvalsReason([await signedBy("ann"), await signedBy("bob")]));
    expect((await chat(body(two))).toolResults).toMatchObject([{ toolCallId: "call-1" }]);
    await chat(body(two));
    expect(await runs()).toBe(1);
  }, 60_000);
});

describe("edited arguments in workerd", () => {
  test("an invalid edit is refused (403, nothing runs); a valid one runs once with the edit, replays run nothing", async () => {
    const threadId = crypto.randomUUID();
    const body = (messages: ModelMessage[]) => ({ threadId, principal: "alice", messages, mode: "generate" });
    const runs = async () => (await get<{ transfer: number }>(`/runs?thread=${threadId}`)).transfer;
    const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
    const first = await chat(body(pay));
    const [asked] = requests(first.messages);
    const answer = (editedArgs: Record<string, unknown>): ModelMessage[] => [
      ...pay,
      ...first.messages,
      {
        role: "tool",
        content: [
          {
            type: "tool-approval-response",
            approvalId: asked!.approvalId,
            approved: true,
            reason: approvalReason({ scope: "once", editedArgs }),
          },
        ],
      },
    ];
    const invalid = await post(body(answer({ to: "bob", cents: "3" })));
    expect(invalid.status).toBe(403);
    expect(await invalid.json()).toMatchObject({ code: "APPROVAL_EDIT_REFUSED" });
    expect(await runs()).toBe(0);
    const edited = answer({ to: "bob", cents: 3 });
    const done = await chat(body(edited));
    expect(done.toolResults).toEqual([
      { toolCallId: "call-1", output: { type: "json", value: { sent: 3, to: "bob" } } },
    ]);
    await Promise.all([chat(body(edited)), chat(body(edited))]);
    expect(await runs()).toBe(1);
  }, 60_000);
});
