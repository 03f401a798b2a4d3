import { verifyEvents } from "@ag-ui/client";
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, test, vi } from "vitest";
import {
  createAguiHandler,
  GRANTS_EVENT,
  SESSION_STATE_KEY,
  type AguiHandlerOptions,
} from "../../../src/agui/index.js";
import type { Grant } from "../../../src/grants/grant.js";
import { signGrant, verifyGrant } from "../../../src/grants/signing.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";
import { BeforeToolCallEvent, type HookProvider } from "../../../src/index.js";
import { newBank, type Bank } from "../../fixtures/bank.js";
import { withOptions } from "./fixtures.js";
import { edgeBank } from "../../runtimes/agui-agent.js";
import { input as runInput } from "../helpers.js";

const SECRET = "edge-test-secret";
const quiet = { warn: vi.fn(), error: vi.fn() };

function handler(ledger: Bank, over: Partial<AguiHandlerOptions> = {}, hooks: HookProvider[] = []) {
  // Most tests here are about HTTP and streaming, not sessions: without a secret or a store they run in the
  // development mode (with unsigned client grants, unless a grant store replaces them).
  const sealed = over.trust?.secret !== undefined || over.stores?.thread !== undefined;
  const trust = sealed
    ? {}
    : { insecureDevelopmentMode: true, ...(over.stores?.grants ? {} : { acceptUnsignedGrants: true }) };
  return createAguiHandler(
    withOptions({ agent: (_, { secret }) => edgeBank(ledger, { secret, hooks }), logger: quiet, trust }, over),
  );
}

const user = (content: string) => ({ id: crypto.randomUUID(), role: "user" as const, content });

function post(body: unknown, init: RequestInit = {}): Request {
  return new Request("http://edge.test/agui", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

interface Sse {
  events: BaseEvent[];
  comments: string[];
  raw: string;
}

function parseSse(raw: string): Sse {
  const events: BaseEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent),
    onComment: (c) => comments.push(c.trim()),
  });
  parser.feed(raw);
  return { events, comments, raw };
}

async function read(res: Response): Promise<Sse> {
  const sse = parseSse(await res.text());
  // Whatever arrives must pass @ag-ui/client's own verifier.
  await lastValueFrom(from(sse.events).pipe(verifyEvents(false), toArray()));
  return sse;
}

const finished = (events: BaseEvent[]) =>
  events.find((e) => e.type === EventType.RUN_FINISHED) as unknown as
    | {
        outcome: {
          type: string;
          interrupts?: { id: string; responseSchema: { properties: { scope: { enum: string[] } } } }[];
          pendingToolCallIds?: string[];
        };
      }
    | undefined;
const snapshot = <T>(events: BaseEvent[], type: EventType, key: string) =>
  (events.find((e) => e.type === type) as unknown as Record<string, T>)[key] as T;

/** One run paused on an approval, and what a client keeps to resume it. */
async function pausedPayment(
  handle: (r: Request) => Promise<Response>,
  text: string,
  forwardedProps: Record<string, unknown>,
) {
  const { events } = await read(await handle(post(runInput({ messages: [user(text)], forwardedProps }))));
  const interrupt = finished(events)!.outcome.interrupts![0]!;
  return {
    interrupt,
    state: snapshot<Record<string, unknown>>(events, EventType.STATE_SNAPSHOT, "snapshot"),
    messages: snapshot<RunAgentInput["messages"]>(events, EventType.MESSAGES_SNAPSHOT, "messages"),
  };
}

describe("createAguiHandler: requests it refuses", () => {
  test("GET → 405 with Allow", async () => {
    const res = await handler(newBank())(new Request("http://edge.test/agui"));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toMatchObject({ error: "method_not_allowed" });
  });

  test("bad JSON → 400 invalid_json with a detail", async () => {
    const res = await handler(newBank())(post("{ not json"));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).toBe("invalid_json");
    expect(body.detail).toMatch(/not JSON/);
  });

  test("a body that is not a RunAgentInput → 400 naming the fields", async () => {
    const res = await handler(newBank())(post({ runId: "r", messages: [{ role: "user" }] }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; detail: string; issues: { path: string }[] };
    expect(body.error).toBe("invalid_run_input");
    expect(body.issues.map((i) => i.path)).toContain("threadId");
    expect(body.detail).toMatch(/threadId/);
  });

  test("any JSON body gets a 400 JSON answer or a stream, never an exception", async () => {
    const handle = handler(newBank());
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const res = await handle(post(JSON.stringify(value)));
        if (res.status === 200) return void (await res.body?.cancel());
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: string; detail: string };
        expect(typeof body.detail).toBe("string");
      }),
      { numRuns: 60 },
    );
  });

  test("a failing agent factory → 500, logged", async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const handle = createAguiHandler({
      agent: () => {
        throw new Error("no model key");
      },
      trust: { secret: SECRET },
      logger,
    });
    const res = await handle(post(runInput({ messages: [user("hi")] })));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: "run_not_started", detail: "no model key" });
    expect(logger.error).toHaveBeenCalled();
  });
});

describe("createAguiHandler: the SSE stream", () => {
  test("frames every event as one data line and ends after RUN_FINISHED", async () => {
    const res = await handler(newBank())(post(runInput({ messages: [user("hello edge")] })));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { events, raw } = await read(res);
    const frames = raw.split("\n\n");
    expect(frames.pop()).toBe("");
    for (const frame of frames) expect(frame).toMatch(/^data: \{.*\}$/);
    expect(events[0]!.type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)!.type).toBe(EventType.RUN_FINISHED);
    const text = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as unknown as { delta: string }).delta)
      .join("");
    expect(text).toBe("You said: hello edge");
  });

  test("sends heartbeat comments while a tool is slow, and none when disabled", async () => {
    const ledger = newBank();
    const pinged = await read(
      await handler(ledger, { timing: { heartbeatMs: 5 } })(post(runInput({ messages: [user("nap 120")] }))),
    );
    expect(pinged.comments.filter((c) => c === "ping").length).toBeGreaterThan(0);
    expect(pinged.raw).toContain(": ping\n\n");
    expect(ledger.naps[0]!.outcome).toBe("finished");
    const silent = await read(
      await handler(ledger, { timing: { heartbeatMs: 0 } })(post(runInput({ messages: [user("nap 60")] }))),
    );
    expect(silent.comments).toEqual([]);
  });

  test("a throwing hook becomes RUN_ERROR and the stream closes", async () => {
    const boom: HookProvider = {
      registerHooks: (r) =>
        void r.addCallback(BeforeToolCallEvent, () => {
          throw new Error("hook exploded");
        }),
    };
    const { events } = await read(await handler(newBank(), {}, [boom])(post(runInput({ messages: [user("nap 1")] }))));
    const last = events.at(-1) as unknown as { type: string; message: string; code: string };
    expect(last.type).toBe(EventType.RUN_ERROR);
    expect(last.message).toMatch(/hook exploded/);
    expect(last.code).toBe("HOOK_FAILED");
  });

  test("an aborted request aborts the run", async () => {
    const ledger = newBank();
    const client = new AbortController();
    const res = await handler(ledger)(post(runInput({ messages: [user("nap 10000")] }), { signal: client.signal }));
    const body = res.text();
    await vi.waitFor(() => expect(ledger.naps[0]?.outcome).toBe("running"));
    client.abort();
    await vi.waitFor(() => expect(ledger.naps[0]!.outcome).toBe("aborted"));
    const { events } = parseSse(await body);
    expect(finished(events)?.outcome.type).toBe("cancelled");
  });

  test("a reader that cancels the stream aborts the run", async () => {
    const ledger = newBank();
    const res = await handler(ledger)(post(runInput({ messages: [user("nap 10000")] })));
    const reader = res.body!.getReader();
    await reader.read();
    await vi.waitFor(() => expect(ledger.naps[0]?.outcome).toBe("running"));
    await reader.cancel();
    await vi.waitFor(() => expect(ledger.naps[0]!.outcome).toBe("aborted"));
  });
});

describe("createAguiHandler: grants", () => {
  test("an always-approval comes back signed in a CUSTOM event, and the signed grant skips the gate next time", async () => {
    const ledger = newBank();
    const handle = handler(ledger, { trust: { secret: SECRET } });
    const p = await pausedPayment(handle, "pay gina 4", { kaboo_grants: [] });
    expect(p.interrupt.responseSchema.properties.scope.enum).toContain("always");
    expect(p.state[SESSION_STATE_KEY]).toBeDefined();
    const resume = [
      { interruptId: p.interrupt.id, status: "resolved" as const, payload: { approved: true, scope: "always" } },
    ];
    const { events } = await read(
      await handle(
        post(runInput({ messages: p.messages, state: p.state, resume, forwardedProps: { kaboo_grants: [] } })),
      ),
    );
    expect(ledger.transfers).toEqual([{ to: "gina", amount: 4 }]);
    const custom = events.find((e) => e.type === EventType.CUSTOM) as unknown as {
      name: string;
      value: { grants: Grant[] };
    };
    expect(custom.name).toBe(GRANTS_EVENT);
    const [grant] = custom.value.grants;
    expect(grant).toMatchObject({ tool: "transfer", subjectKey: "to:gina", scope: "always" });
    expect(await verifyGrant(grant!, SECRET)).toBe(true);
    expect(events.indexOf(custom as unknown as BaseEvent)).toBeLessThan(
      events.findIndex((e) => e.type === EventType.RUN_FINISHED),
    );

    const again = await read(
      await handle(
        post(runInput({ threadId: "t2", messages: [user("pay gina 3")], forwardedProps: { kaboo_grants: [grant] } })),
      ),
    );
    expect(finished(again.events)?.outcome.type).toBe("success");
    expect(ledger.transfers).toEqual([
      { to: "gina", amount: 4 },
      { to: "gina", amount: 3 },
    ]);
  });

  test("under a secret, forged, altered and unsigned grants are dropped even when the gate has no secret", async () => {
    const ledger = newBank();
    // The agent's gate is built without the secret: the handler's own check must hold.
    const handle = createAguiHandler({ agent: () => edgeBank(ledger), trust: { secret: SECRET }, logger: quiet });
    const genuine = await signGrant({ tool: "transfer", subjectKey: "to:gina", scope: "always", grantedAt: 1 }, SECRET);
    const forged = await signGrant(
      { tool: "transfer", subjectKey: "to:mallory", scope: "always", grantedAt: 1 },
      "another secret",
    );
    const altered = { ...genuine, subjectKey: "to:mallory" };
    const unsigned = { tool: "transfer", subjectKey: "to:mallory", scope: "always", grantedAt: 1 };
    for (const bad of [forged, altered, unsigned]) {
      const { events } = await read(
        await handle(post(runInput({ messages: [user("pay mallory 9")], forwardedProps: { kaboo_grants: [bad] } }))),
      );
      expect(finished(events)?.outcome.type).toBe("interrupt");
    }
    expect(ledger.transfers).toEqual([]);
    await read(
      await handle(post(runInput({ messages: [user("pay gina 1")], forwardedProps: { kaboo_grants: [genuine] } }))),
    );
    expect(ledger.transfers).toEqual([{ to: "gina", amount: 1 }]);
  });

  test("with a grantStore the decision is recorded there, and its grants reach a gate that checks signatures", async () => {
    const ledger = newBank();
    const store = new MemoryGrantStore();
    const handle = handler(ledger, { trust: { secret: SECRET }, stores: { grants: store } });
    const p = await pausedPayment(handle, "pay hugo 5", {});
    const resume = [
      { interruptId: p.interrupt.id, status: "resolved" as const, payload: { approved: true, scope: "thread" } },
    ];
    const { events } = await read(await handle(post(runInput({ messages: p.messages, state: p.state, resume }))));
    expect(events.some((e) => e.type === EventType.CUSTOM)).toBe(false);
    expect(await store.list()).toEqual([
      expect.objectContaining({ tool: "transfer", subjectKey: "to:hugo", scope: "thread", threadId: "t1" }),
    ]);
    // A forged client grant for another payee is ignored: the store is the source.
    const forged = { tool: "transfer", subjectKey: "to:ivan", scope: "always", grantedAt: 1, signature: "v1.AAAA" };
    const same = await read(
      await handle(post(runInput({ messages: [user("pay hugo 6")], forwardedProps: { kaboo_grants: [forged] } }))),
    );
    expect(finished(same.events)?.outcome.type).toBe("success");
    const other = await read(await handle(post(runInput({ threadId: "t9", messages: [user("pay hugo 7")] }))));
    expect(finished(other.events)?.outcome.type).toBe("interrupt");
    expect(ledger.transfers).toEqual([
      { to: "hugo", amount: 5 },
      { to: "hugo", amount: 6 },
    ]);
  });
});

describe("createAguiHandler: CORS", () => {
  test("off by default: OPTIONS → 405", async () => {
    const res = await handler(newBank())(new Request("http://edge.test/agui", { method: "OPTIONS" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("cors: true answers preflights and marks every answer", async () => {
    const handle = handler(newBank(), { cors: true });
    const pre = await handle(
      new Request("http://edge.test/agui", { method: "OPTIONS", headers: { origin: "https://app.example" } }),
    );
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/content-type/);
    const bad = await handle(post("nope"));
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("an origin list echoes listed origins only", async () => {
    const handle = handler(newBank(), {
      cors: { origin: ["https://app.example"], headers: ["content-type", "x-key"] },
    });
    const ok = await handle(
      new Request("http://edge.test/agui", { method: "OPTIONS", headers: { origin: "https://app.example" } }),
    );
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(ok.headers.get("access-control-allow-headers")).toBe("content-type, x-key");
    const no = await handle(
      new Request("http://edge.test/agui", { method: "OPTIONS", headers: { origin: "https://evil.example" } }),
    );
    expect(no.headers.get("access-control-allow-origin")).toBeNull();
  });
});
