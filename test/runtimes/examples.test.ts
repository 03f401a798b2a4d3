/**
 * The two edge examples as shipped, started with the commands the README gives (`npm run example:worker`,
 * `npm run example:deno`) and driven by an unmodified @ag-ui/client HttpAgent: the Cloudflare Worker with
 * its Durable Object store in workerd (miniflare, SQLite storage persisted to a temp dir) and the Deno
 * server with Deno KV (a temp database file). No API key: the scripted model
 * answers. Transfers are booked at a loopback "bank API" that counts every booking.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { HttpAgent, type AgentSubscriber } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { signGrant } from "../../src/grants/signing.js";
import { ROOT, ensureDist } from "./bundle.js";

const SECRET = "examples-secret";
/** What a rejected runAgent says (an Error, or the RUN_ERROR event's fields). */
const said = (e: unknown) => JSON.stringify(e instanceof Error ? { ...e, message: e.message } : e);
/** Runs `run`, and says how it ended: the RUN_ERROR code, or "finished". */
async function ending(run: (s: AgentSubscriber) => Promise<unknown>): Promise<string> {
  let code = "finished";
  const subscriber: AgentSubscriber = { onRunErrorEvent: ({ event }) => void (code = event.code ?? "RUN_ERROR") };
  await run(subscriber).catch((e: unknown) => void (code = code === "finished" ? said(e) : code));
  return code;
}
let dir: string;
let bank: Server;
let bankUrl = "";
const booked: { to: string; amount: number; key: string }[] = [];

beforeAll(async () => {
  // The README's first command builds dist/; the examples run against it.
  ensureDist();
  dir = mkdtempSync(join(tmpdir(), "kaboo-examples-"));
  bank = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      booked.push({
        ...(JSON.parse(body) as { to: string; amount: number }),
        key: String(req.headers["idempotency-key"]),
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((ok) => bank.listen(0, "127.0.0.1", ok));
  bankUrl = `http://127.0.0.1:${(bank.address() as AddressInfo).port}/book`;
});
afterAll(async () => {
  await new Promise((ok) => bank.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  url: string;
  stop(): Promise<void>;
}

/** The commands the README gives for running the examples from a clone. */
function documentedCommands(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("Both examples run offline"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

/**
 * Starts a README command (`npm run example:…`) as a user would, on a free port, and waits for the
 * server's "listening on" line. Settings come through the environment the example documents.
 */
async function startDocumented(command: string, env: Record<string, string>): Promise<Started> {
  const child: ChildProcess = spawn("sh", ["-c", command], {
    cwd: ROOT,
    // Its own process group, so stopping it stops npm, sh and the server under them.
    detached: true,
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", PORT: "0", HOSTNAME: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${command} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]!.replace("0.0.0.0", "127.0.0.1"));
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    },
  };
}

const COMMON_ENV = () => ({ GRANT_SECRET: SECRET, BANK_API_URL: bankUrl, OPENAI_API_KEY: "" });
const startWorker = (persist: string) =>
  startDocumented("npm run example:worker", { ...COMMON_ENV(), PERSIST_DIR: persist });
const startDeno = (kvPath: string) => startDocumented("npm run example:deno", { ...COMMON_ENV(), KV_PATH: kvPath });

test("the README runs the examples with these commands, from the repository root", () => {
  expect(documentedCommands()).toEqual(["npm ci && npm run build", "npm run example:worker", "npm run example:deno"]);
});

const runtimes = [
  { name: "the Cloudflare Worker example (workerd, Durable Objects)", start: startWorker },
  { name: "the Deno example (Deno KV)", start: startDeno },
];

describe.each(runtimes)("$name", ({ start }) => {
  let server: Started;
  let storage = "";
  beforeAll(async () => {
    storage = join(dir, `storage-${crypto.randomUUID()}`);
    server = await start(storage);
  }, 60_000);
  afterAll(() => server?.stop());

  const agent = (user: string, o: Partial<ConstructorParameters<typeof HttpAgent>[0]> = {}) =>
    new HttpAgent({ url: server.url, threadId: crypto.randomUUID(), headers: { "x-kaboo-user": user }, ...o });
  const msg = (content: string): Message => ({ id: crypto.randomUUID(), role: "user", content });
  const lastText = (a: HttpAgent) =>
    [...a.messages].reverse().find((m) => m.role === "assistant" && typeof m.content === "string" && m.content)
      ?.content;
  const bookedTo = (to: string) => booked.filter((b) => b.to === to);
  const answer = (a: HttpAgent, payload: unknown) =>
    a.runAgent({
      forwardedProps: { kaboo_grants: [] },
      resume: [{ interruptId: a.pendingInterrupts[0]!.id, status: "resolved", payload }],
    });
  /** A paused transfer, and a copy of the client as it was then (to replay from later). */
  async function paused(user: string, text: string) {
    const a = agent(user);
    a.addMessage(msg(text));
    await a.runAgent({ forwardedProps: { kaboo_grants: [] } });
    expect(a.pendingInterrupts).toHaveLength(1);
    const copy = () =>
      agent(user, {
        threadId: a.threadId,
        initialMessages: structuredClone(a.messages),
        initialState: structuredClone(a.state),
      });
    return { a, copy, interruptId: a.pendingInterrupts[0]!.id };
  }
  const resumeWith = (c: HttpAgent, interruptId: string, payload: unknown = { approved: true }, s?: AgentSubscriber) =>
    c.runAgent({ forwardedProps: { kaboo_grants: [] }, resume: [{ interruptId, status: "resolved", payload }] }, s);

  test("without the x-kaboo-user header: 401, and the body says to send it", async () => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        threadId: "t",
        runId: "r",
        messages: [],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Send an x-kaboo-user header/);
  });

  test("a text turn", async () => {
    const a = agent("ann");
    a.addMessage(msg("hello edge"));
    await a.runAgent();
    expect(lastText(a)).toMatch(/^You said: hello edge/);
  });

  test("approve → the transfer runs exactly once, with its idempotency key", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a } = await paused("ann", `pay ${to} 5`);
    expect(bookedTo(to)).toEqual([]);
    await answer(a, { approved: true });
    expect(bookedTo(to)).toEqual([{ to, amount: 5, key: expect.stringMatching(/^kw1-/) }]);
    // Words for the person, not the tool result's JSON.
    expect(lastText(a)).toBe(`Sent 5 to ${to}.`);
  });

  test("the same resume replayed from a new HttpAgent runs nothing", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a, copy, interruptId } = await paused("ann", `pay ${to} 6`);
    const replayer = copy();
    await answer(a, { approved: true });
    await resumeWith(replayer, interruptId);
    expect(bookedTo(to)).toHaveLength(1);
    expect(lastText(replayer)).toMatch(/Sent 6/);
  });

  test("two concurrent resumes: one transfer", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { copy, interruptId } = await paused("ann", `pay ${to} 7`);
    const endings = await Promise.all([0, 1].map(() => ending((s) => resumeWith(copy(), interruptId, undefined, s))));
    // One runs it; the other says a resume is in progress or streams the recorded outcome.
    expect(endings).toContain("finished");
    for (const e of endings) expect(["finished", "RESUME_IN_PROGRESS"]).toContain(e);
    expect(bookedTo(to)).toHaveLength(1);
  });

  test("deny → no transfer", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a } = await paused("ann", `pay ${to} 8`);
    await answer(a, { approved: false });
    expect(bookedTo(to)).toEqual([]);
    expect(lastText(a)).toMatch(/denied/);
  });

  test("a reload: a new HttpAgent that knows only the thread id resumes once", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a, interruptId } = await paused("ann", `pay ${to} 9`);
    const reloaded = agent("ann", { threadId: a.threadId });
    await resumeWith(reloaded, interruptId);
    expect(bookedTo(to)).toHaveLength(1);
    expect(reloaded.messages.map((m) => m.role)).toContain("tool");
  });

  test("a forged session decides nothing: the amount shown runs, not the one edited into the state", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a, interruptId } = await paused("ann", `pay ${to} 10`);
    const state = structuredClone(a.state) as {
      kaboo_session: { interrupt_state: { context: { toolUseMessage: { content: { input: { amount: number } }[] } } } };
    };
    state.kaboo_session.interrupt_state.context.toolUseMessage.content[0]!.input.amount = 5000;
    const forger = agent("ann", {
      threadId: a.threadId,
      initialMessages: structuredClone(a.messages),
      initialState: state,
    });
    await resumeWith(forger, interruptId);
    expect(bookedTo(to).map((b) => b.amount)).toEqual([10]);
  });

  test("a grant of another principal is ignored; the thread of another principal refuses them", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a, copy, interruptId } = await paused("ann", `pay ${to} 1`);
    const grants: unknown[] = [];
    await a.runAgent(
      {
        forwardedProps: { kaboo_grants: [] },
        resume: [{ interruptId, status: "resolved", payload: { approved: true, scope: "always" } }],
      },
      {
        onCustomEvent: ({ event }) =>
          void (event.name === "kaboo_grants" && grants.push(...(event.value as { grants: unknown[] }).grants)),
      },
    );
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ principal: "ann", signature: expect.stringMatching(/^v2\./) });
    const bob = agent("bob");
    bob.addMessage(msg(`pay ${to} 2`));
    await bob.runAgent({ forwardedProps: { kaboo_grants: grants } });
    expect(bob.pendingInterrupts).toHaveLength(1);
    // Relabelled for bob, the grant no longer verifies.
    const relabelled = { ...(grants[0] as object), principal: "bob" };
    const bob2 = agent("bob");
    bob2.addMessage(msg(`pay ${to} 3`));
    await bob2.runAgent({
      forwardedProps: {
        kaboo_grants: [
          relabelled,
          await signGrant(
            { tool: "transfer", subjectKey: `to:${to}`, scope: "always", grantedAt: 1, principal: "bob" },
            "not the secret",
          ),
        ],
      },
    });
    expect(bob2.pendingInterrupts).toHaveLength(1);
    const ann = agent("ann");
    ann.addMessage(msg(`pay ${to} 4`));
    await ann.runAgent({ forwardedProps: { kaboo_grants: grants } });
    expect(ann.pendingInterrupts).toEqual([]);
    expect(bookedTo(to).map((b) => b.amount)).toEqual([1, 4]);
    // Bob cannot answer ann's thread either.
    const stolen = await ending((s) =>
      resumeWith(agent("bob", { threadId: copy().threadId }), interruptId, undefined, s),
    );
    expect(stolen).toBe("THREAD_FORBIDDEN");
  });

  test("a paused thread survives a restart of the server", async () => {
    const to = `p${crypto.randomUUID().slice(0, 8)}`;
    const { a, interruptId } = await paused("ann", `pay ${to} 11`);
    await server.stop();
    server = await start(storage);
    await resumeWith(agent("ann", { threadId: a.threadId }), interruptId);
    expect(bookedTo(to)).toHaveLength(1);
  }, 60_000);
});
