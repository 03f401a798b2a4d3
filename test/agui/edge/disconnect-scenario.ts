/**
 * The disconnect scenario of the edge property tests, for any handler (in process, or a server in
 * workerd or Deno reached over HTTP): three model turns, two gated transfers (the first approved,
 * the second denied), and a client that drops a request's stream after a given event and recovers
 * as a real one would — it reattaches from its last event (Last-Event-ID), or, for a resume, sends
 * the same resume again (answered from the record, or refused while the run still goes on).
 */
import { EventType } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import type { Agent } from "../../../src/index.js";
import { ScriptedModel } from "../../../src/index.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { runBody } from "../../fixtures/run-input.js";

/** A request handler: the handler itself, or `fetch` to a server. */
export type Handle = (request: Request) => Promise<Response>;

/** One SSE frame: its `id:` and its event. */
export interface Frame {
  id: string | undefined;
  data: { type: string; outcome?: { type: string; interrupts?: { id: string }[] }; code?: string };
}

/** The scenario's agent, on the shared bank: `sent` records each transfer as it happens. */
export function scenarioAgent(sent: (to: string) => void | Promise<void>): Agent {
  const model = new ScriptedModel({
    chunkSize: 6,
    script: ({ lastToolResults, messages }) => {
      const calls = messages.filter((m) => m.role === "assistant").length;
      if (calls === 0) return { text: "First alice.", toolCalls: [{ name: "transfer", input: { to: "alice" } }] };
      if (calls === 1) return { text: "Now bob.", toolCalls: [{ name: "transfer", input: { to: "bob" } }] };
      return { text: `All done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join(", ")}.` };
    },
  });
  return bankAgent(newBank(), {
    model,
    payeeOnly: true,
    beforeMoving: () => new Promise((r) => setTimeout(r, 1)),
    onSent: ({ to }) => sent(to),
    gate: { remember: false, agentName: "" },
  });
}

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://edge.test/agui", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

interface Body {
  threadId: string;
  runId: string;
  resume?: unknown[];
  [key: string]: unknown;
}

const input = (threadId: string, over: Record<string, unknown>): Body => runBody(threadId, over);

/** Reads a response's SSE frames; stops after `limit` frames (dropping the connection) or at the end. */
export async function readFrames(res: Response, limit = Number.POSITIVE_INFINITY): Promise<Frame[]> {
  const out: Frame[] = [];
  const parser = createParser({ onEvent: (m) => out.push({ id: m.id, data: JSON.parse(m.data) }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  while (out.length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel().catch(() => undefined);
  return out.slice(0, limit);
}

const terminal = (f: Frame | undefined) =>
  f?.data.type === EventType.RUN_FINISHED || f?.data.type === EventType.RUN_ERROR;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request as the client lives it: dropped after `drop` frames (if set), then recovered. */
async function turn(handle: Handle, body: Body, drop: number | undefined, resend: boolean): Promise<Frame[]> {
  const seen = await readFrames(await handle(post(body)), drop);
  if (terminal(seen.at(-1))) return seen;
  if (resend && Array.isArray(body.resume)) {
    for (;;) {
      const again = await readFrames(await handle(post({ ...body, runId: crypto.randomUUID() })));
      if (again.at(-1)?.data.code !== "RESUME_IN_PROGRESS") return again;
      await sleep(2);
    }
  }
  const last = seen.at(-1)?.id;
  const rest = await readFrames(
    await handle(post({ kaboo_connect: { threadId: body.threadId } }, last ? { "last-event-id": last } : {})),
  );
  return [...seen, ...rest];
}

/** Where a conversation drops its connection: request `at` (0–2), after `after` frames. */
export interface Cut {
  at: number;
  after: number;
  resend: boolean;
}

/** What the client saw: the questions asked, each request's outcome, each request's frame count. */
export interface Seen {
  asked: string[];
  outcomes: string[];
  lengths: number[];
}

/**
 * The whole conversation on one thread.
 *
 * @param handle - The handler.
 * @param threadId - A fresh thread.
 * @param cut - Where to drop the connection. Default: nowhere.
 * @returns What the client saw.
 */
export async function conversation(handle: Handle, threadId: string, cut?: Cut): Promise<Seen> {
  const seen: Seen = { asked: [], outcomes: [], lengths: [] };
  const drop = (i: number) => (cut && cut.at === i ? cut.after : undefined);
  const finish = (frames: Frame[]) => {
    seen.lengths.push(frames.length);
    const end = frames.at(-1)!.data;
    seen.outcomes.push(end.outcome?.type ?? end.code ?? "none");
    for (const i of end.outcome?.interrupts ?? []) seen.asked.push(i.id);
    return end.outcome?.interrupts?.[0]?.id ?? "";
  };
  const start = input(threadId, { messages: [{ id: "u1", role: "user", content: "pay alice and bob" }] });
  const first = finish(await turn(handle, start, drop(0), false));
  const answer = (id: string, approved: boolean) =>
    input(threadId, { resume: [{ interruptId: id, status: "resolved", payload: { approved } }] });
  const second = finish(await turn(handle, answer(first, true), drop(1), cut?.resend ?? false));
  finish(await turn(handle, answer(second, false), drop(2), cut?.resend ?? false));
  return seen;
}

/** A transcript without ids and times. */
export function shape(messages: unknown[]): unknown[] {
  return (messages as Record<string, unknown>[]).map((m) => {
    const { id: _id, toolCallId: _t, ...rest } = m;
    if (Array.isArray(rest.toolCalls))
      rest.toolCalls = (rest.toolCalls as { function: unknown }[]).map((c) => c.function);
    return rest;
  });
}
