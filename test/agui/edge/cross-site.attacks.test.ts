/**
 * Cross-site requests attacked. A host whose `principal` comes from a session cookie would take a
 * request another site's page makes the person's browser send (a form post, or a `fetch` with a
 * `text/plain` body and `credentials: "include"`, which needs no preflight): a requester could have
 * each approver's browser approve her own four-eyes wire, or have anyone's revoke their grants.
 * Browsers say where a request comes from (`Sec-Fetch-Site`); a request from another site, or a
 * sibling subdomain, is refused 403 unless the handler's `cors` allows its origin.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler, createGrantsHandler } from "../../../src/agui/index.js";
import { MemoryGrantStore } from "../../../src/grants/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { quietLogger, resumeBody, send, type Turn } from "./fixtures.js";

/** The principal is the session cookie's person. */
const cookiePrincipal = (r: Request) => /session=(\w+)/.exec(r.headers.get("cookie") ?? "")?.[1] ?? "";

function setup(cors?: Parameters<typeof createAguiHandler>[0]["cors"]) {
  const wires: string[] = [];
  const agent = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "wire", input: { to: "mallory" } }] },
      }),
      tools: [
        tool({
          name: "wire",
          description: "Wire.",
          inputSchema: z.object({ to: z.string() }),
          callback: ({ to }) => {
            wires.push(to);
            return "ok";
          },
        }),
      ],
      hooks: [new InterruptHook([{ pattern: "wire", approvals: { required: 2, eligible: (p) => p !== "mallory" } }])],
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: new MemoryThreadStore() },
    trust: { principal: cookiePrincipal },
    logger: quietLogger(),
    ...(cors === undefined ? {} : { cors }),
  });
  return { wires, handle };
}

/** What a page of `origin` makes the browser of the cookie's person send. */
const from = (site: string, origin: string, person: string) => ({
  cookie: `session=${person}`,
  "sec-fetch-site": site,
  origin,
});

const approve = (s: ReturnType<typeof setup>, turn: Turn, headers: Record<string, string>) =>
  send(s.handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() }, headers);

describe("cross-site requests", () => {
  test("another site cannot make approvers' browsers approve a four-eyes wire", async () => {
    const s = setup();
    const asked = await send(
      s.handle,
      input({ threadId: "t", messages: [{ id: "u", role: "user", content: "wire" }] }),
      { cookie: "session=mallory", "sec-fetch-site": "same-origin" },
    );
    expect(asked.interrupts).toHaveLength(1);
    for (const [site, origin] of [
      ["cross-site", "https://evil.test"],
      ["same-site", "https://evil.bank.test"],
    ] as const) {
      for (const person of ["bob", "carol"]) {
        const res = await s.handle(
          new Request("https://bank.test/agui", {
            method: "POST",
            headers: { "content-type": "text/plain", ...from(site, origin, person) },
            body: JSON.stringify({ ...resumeBody("t", asked, { approved: true }), runId: crypto.randomUUID() }),
          }),
        );
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ error: "cross_site" });
      }
    }
    expect(s.wires).toEqual([]);
    // The approvers' own page (same origin), and a client outside any browser, still answer.
    const bob = await approve(s, asked, from("same-origin", "https://bank.test", "bob"));
    expect(bob.outcome).toBe("interrupt");
    const carol = await approve(s, bob, { cookie: "session=carol" });
    expect(carol.outcome).toBe("success");
    expect(s.wires).toEqual(["mallory"]);
  });

  test("an origin the handler's cors allows may call it from another site; others may not", async () => {
    const listed = setup({ origin: ["https://app.test"] });
    const say = input({ threadId: "t", messages: [{ id: "u", role: "user", content: "hi" }] });
    const ok = await listed.handle(
      new Request("https://api.test/agui", {
        method: "POST",
        headers: from("cross-site", "https://app.test", "ann"),
        body: JSON.stringify(say),
      }),
    );
    expect(ok.status).toBe(200);
    const refused = await listed.handle(
      new Request("https://api.test/agui", {
        method: "POST",
        headers: from("cross-site", "https://evil.test", "ann"),
        body: JSON.stringify({ kaboo_cancel: { threadId: "t" } }),
      }),
    );
    expect(refused.status).toBe(403);
    const open = setup(true);
    const any = await open.handle(
      new Request("https://api.test/agui", {
        method: "POST",
        headers: from("cross-site", "https://x.test", "ann"),
        body: JSON.stringify(say),
      }),
    );
    expect(any.status).toBe(200);
  });

  test("another site cannot make a person's browser revoke their grants", async () => {
    const grantStore = new MemoryGrantStore();
    await grantStore.grant({ tool: "wire", scope: "always", subjectKey: "to:bob", principal: "ann" });
    const grants = createGrantsHandler({ grantStore, principal: cookiePrincipal, logger: quietLogger() });
    const body = JSON.stringify({ revoke: { all: true } });
    const res = await grants(
      new Request("https://bank.test/grants", {
        method: "POST",
        headers: from("cross-site", "https://evil.test", "ann"),
        body,
      }),
    );
    expect(res.status).toBe(403);
    expect(await grantStore.list()).toHaveLength(1);
    const own = await grants(
      new Request("https://bank.test/grants", {
        method: "POST",
        headers: from("same-origin", "https://bank.test", "ann"),
        body,
      }),
    );
    expect(await own.json()).toEqual({ removed: 1 });
  });
});
