/**
 * The attacker's bench for the edge handler: the shared bank (its transfer counts its executions,
 * gated, rememberable per payee; an un-gated `balance`; a model failure after a tool ran) with
 * optional slowness; and helpers that POST HttpAgent-shaped requests and read the SSE answer.
 */
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { createAguiHandler, type AguiHandlerOptions } from "../../../src/agui/index.js";
import type { ApprovalScope } from "../../../src/hooks/approval/request.js";
import { type Agent, BeforeToolCallEvent } from "../../../src/index.js";
import { bankAgent as sharedBank, type Bank } from "../../fixtures/bank.js";
import { capturingLogger } from "../../fixtures/logger.js";
import type { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { deferred } from "../../agent/helpers.js";
import { input } from "../helpers.js";

export { newBank, type Bank } from "../../fixtures/bank.js";

export interface BankOptions {
  remember?: ApprovalScope;
  ttlSeconds?: number;
  /** Each gated call waits this long before it runs (a slow tool). */
  delayMs?: number;
  /** Each call waits for this before it runs (a test decides when). */
  hold?: () => Promise<void>;
}

/**
 * The shared bank with `balance`, its gate remembering per payee (`to:<payee>`), signing with
 * `secret`: "pay <name> <amount>" → transfer; "balance <name>" → balance; after results → "Done: …".
 */
export function bankAgent(bank: Bank, secret: string | CryptoKey | undefined, o: BankOptions = {}): Agent {
  const slow = {
    registerHooks(r: { addCallback: (e: typeof BeforeToolCallEvent, f: () => Promise<void>) => void }) {
      r.addCallback(BeforeToolCallEvent, async () => {
        await o.hold?.();
        await new Promise((ok) => setTimeout(ok, o.delayMs ?? 0));
      });
    },
  };
  return sharedBank(bank, {
    tools: ["balance"],
    gate: { subject: "key", secret, ...(o.remember ? { remember: o.remember } : {}), ttlSeconds: o.ttlSeconds },
    hooks: o.delayMs || o.hold ? [slow] : [],
  });
}

export const quietLogger = capturingLogger;

/** A `hold` for {@link BankOptions}: `started` settles when a call reaches it; the call waits for `release()`. */
export function heldCall() {
  const started = deferred();
  const gate = deferred();
  const hold = async () => {
    started.resolve();
    await gate.promise;
  };
  return { started: started.promise, release: gate.resolve, hold };
}

/** Handler options a test overrides: any top-level option, and any option of a group. */
export type HandlerOverrides = Partial<AguiHandlerOptions>;

/**
 * `base` with `over` on top, group by group: `{ trust: { principal } }` over `{ trust: { secret } }`
 * keeps both (a plain spread would drop the secret).
 */
export function withOptions<T extends HandlerOverrides>(base: T, over: HandlerOverrides = {}): T {
  const out: Record<string, unknown> = { ...base, ...over };
  for (const group of ["stores", "trust", "limits", "timing"] as const)
    if (base[group] || over[group]) out[group] = { ...base[group], ...over[group] };
  return out as T;
}

/** The same stored threads seen from another isolate: the shared storage, its own registry of live runs. */
export function elsewhere(store: MemoryThreadStore): ThreadStore {
  return {
    load: (t) => store.load(t),
    compareAndSet: (t, v, d) => store.compareAndSet(t, v, d),
    ledger: (t) => store.ledger(t),
    appendEvents: (t, r, f, e, end, w) => store.appendEvents(t, r, f, e, end, w),
    readEvents: (t, r, a) => store.readEvents(t, r, a),
    compactEvents: (t, b) => store.compactEvents(t, b),
  };
}

/** A handler over the bank. */
export function bankHandler(bank: Bank, over: HandlerOverrides = {}, o: BankOptions = {}) {
  return createAguiHandler(
    withOptions({ agent: (_, { secret }) => bankAgent(bank, secret, o), logger: quietLogger() }, over),
  );
}

export function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://edge.test/agui", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** What a client keeps of one run: its events, final messages/state, outcome, error. */
export interface Turn {
  events: BaseEvent[];
  messages: RunAgentInput["messages"];
  state: Record<string, unknown>;
  interrupts: { id: string }[];
  outcome: string | undefined;
  error: { code: string; message: string } | undefined;
}

export async function send(
  handle: (r: Request) => Promise<Response>,
  body: unknown,
  headers?: Record<string, string>,
): Promise<Turn> {
  const res = await handle(post(body, headers));
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const events: BaseEvent[] = [];
  createParser({ onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent) }).feed(await res.text());
  const find = <T>(type: EventType) => events.findLast((e) => e.type === type) as T | undefined;
  const finished = find<{ outcome?: { type: string; interrupts?: { id: string }[] } }>(EventType.RUN_FINISHED);
  const error = find<{ code: string; message: string }>(EventType.RUN_ERROR);
  return {
    events,
    messages: find<{ messages: RunAgentInput["messages"] }>(EventType.MESSAGES_SNAPSHOT)?.messages ?? [],
    state: find<{ snapshot: Record<string, unknown> }>(EventType.STATE_SNAPSHOT)?.snapshot ?? {},
    interrupts: finished?.outcome?.interrupts ?? [],
    outcome: finished?.outcome?.type,
    error: error ? { code: error.code, message: error.message } : undefined,
  };
}

/** A first turn asking to pay; returns the paused turn and the input that produced it. */
export async function pause(
  handle: (r: Request) => Promise<Response>,
  threadId: string,
  text: string,
  headers?: Record<string, string>,
) {
  const first = input({
    threadId,
    messages: [{ id: crypto.randomUUID(), role: "user", content: text }],
    forwardedProps: { kaboo_grants: [] },
  });
  const turn = await send(handle, first, headers);
  if (turn.interrupts.length !== 1) throw new Error(`expected one interrupt, got ${JSON.stringify(turn.events)}`);
  return { first, turn };
}

/** The resume body an HttpAgent sends after `turn`: its messages and state back, and the answer. */
export function resumeBody(
  threadId: string,
  turn: Turn,
  payload: unknown,
  id = turn.interrupts[0]?.id ?? "",
): RunAgentInput {
  return input({
    threadId,
    messages: turn.messages,
    state: turn.state,
    forwardedProps: { kaboo_grants: [] },
    resume: [{ interruptId: id, status: "resolved", payload }],
  });
}
