/**
 * The attacker's bench for the edge handler: a bank whose money-moving tool counts its executions
 * (gated, rememberable per payee), an un-gated `balance`, optional slowness and a model failure
 * after a tool ran; and helpers that POST HttpAgent-shaped requests and read the SSE answer.
 */
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import * as z from "zod/v4";
import { createAguiHandler, type AguiHandlerOptions } from "../../../src/agui/index.js";
import type { ApprovalScope } from "../../../src/hooks/approval/request.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, BeforeToolCallEvent, ScriptedModel, tool, type ScriptedTurn } from "../../../src/index.js";
import { input } from "../helpers.js";

/** What the tools did. */
export interface Bank {
  transfers: { to: string; amount: number }[];
  balances: string[];
  /** Fail the next model call that follows a tool result. */
  failAfterTool: boolean;
}

export interface BankOptions {
  remember?: ApprovalScope;
  ttlSeconds?: number;
  /** Each gated call waits this long before it runs (a slow tool). */
  delayMs?: number;
  /** Each call waits for this before it runs (a test decides when). */
  hold?: () => Promise<void>;
}

export const newBank = (): Bank => ({ transfers: [], balances: [], failAfterTool: false });

/** "pay <name> <amount>" → transfer; "balance <name>" → balance; after results → "Done: …". */
export function bankAgent(bank: Bank, secret: string | CryptoKey | undefined, o: BankOptions = {}): Agent {
  const model = new ScriptedModel({
    script: ({ lastUserText, lastToolResults, messages }): ScriptedTurn => {
      if (lastToolResults.length) {
        if (bank.failAfterTool) {
          bank.failAfterTool = false;
          return { error: new Error("the model is down") };
        }
        return { text: `Done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join("; ")}` };
      }
      if (messages.at(-1)?.role === "assistant") return { text: "ok" };
      const pay = /pay (\w+) (\d+)/.exec(lastUserText);
      if (pay) return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] };
      const bal = /balance (\w+)/.exec(lastUserText);
      if (bal) return { toolCalls: [{ name: "balance", input: { account: bal[1] } }] };
      return { text: `You said: ${lastUserText}` };
    },
  });
  const transfer = tool({
    name: "transfer",
    description: "Send money.",
    inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
    callback: (i) => {
      bank.transfers.push(i);
      return `sent ${i.amount} to ${i.to}`;
    },
  });
  const balance = tool({
    name: "balance",
    description: "Read a balance.",
    inputSchema: z.object({ account: z.string() }),
    callback: ({ account }) => {
      bank.balances.push(account);
      return `${account}: 100`;
    },
  });
  const subject = (_: string, i: unknown) => `to:${(i as { to: string }).to}`;
  const gate = new InterruptHook([{ pattern: "transfer", remember: o.remember ?? "always", subject }], {
    agentName: "bank",
    ...(secret !== undefined ? { secret } : {}),
    ...(o.ttlSeconds !== undefined ? { ttlSeconds: o.ttlSeconds } : {}),
  });
  const slow = {
    registerHooks(r: { addCallback: (e: typeof BeforeToolCallEvent, f: () => Promise<void>) => void }) {
      r.addCallback(BeforeToolCallEvent, async () => {
        await o.hold?.();
        await new Promise((ok) => setTimeout(ok, o.delayMs ?? 0));
      });
    },
  };
  return new Agent({
    name: "bank",
    model,
    tools: [transfer, balance],
    hooks: o.delayMs || o.hold ? [gate, slow] : [gate],
  });
}

export const quietLogger = () => ({ warn: () => {}, error: () => {} });

/** A handler over the bank. */
export function bankHandler(bank: Bank, over: Partial<AguiHandlerOptions> = {}, o: BankOptions = {}) {
  return createAguiHandler({ agent: (_, { secret }) => bankAgent(bank, secret, o), logger: quietLogger(), ...over });
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
