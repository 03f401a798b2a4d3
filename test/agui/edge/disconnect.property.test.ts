/**
 * Property: one run shape at the edge — three model turns, two gated transfers (the first
 * approved, the second denied) — interrupted by a client disconnect after a random event of a
 * random request. The client recovers as a real one would: it reattaches from its last event
 * (Last-Event-ID), or, for a resume, sends the same resume again (answered from the record, or
 * refused while the run still goes on). Every interrupted run ends with the uninterrupted run's
 * transcript (ids and times aside), the approved transfer executed exactly once, the denied one
 * never, no call reported as cancelled, and each approval asked once. KABOO_PROPERTY_RUNS raises
 * the count (default 200).
 */
import { EventType } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { post, quietLogger } from "./fixtures.js";
import { input } from "../helpers.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 200;

interface Frame {
  id: string | undefined;
  data: { type: string; outcome?: { type: string; interrupts?: { id: string }[] }; code?: string };
}

function world() {
  const sent: string[] = [];
  const store = new MemoryThreadStore();
  const agent = () => {
    const transfer = tool({
      name: "transfer",
      description: "Send money.",
      inputSchema: z.object({ to: z.string() }),
      callback: async ({ to }) => {
        await new Promise((r) => setTimeout(r, 1));
        sent.push(to);
        return `sent to ${to}`;
      },
    });
    const model = new ScriptedModel({
      chunkSize: 6,
      script: ({ lastToolResults, messages }) => {
        const calls = messages.filter((m) => m.role === "assistant").length;
        if (calls === 0) return { text: "First alice.", toolCalls: [{ name: "transfer", input: { to: "alice" } }] };
        if (calls === 1) return { text: "Now bob.", toolCalls: [{ name: "transfer", input: { to: "bob" } }] };
        return { text: `All done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join(", ")}.` };
      },
    });
    return new Agent({ model, tools: [transfer], hooks: [new InterruptHook(["transfer"])] });
  };
  return { sent, store, handle: createAguiHandler({ store, agent, logger: quietLogger() }) };
}

type Handle = ReturnType<typeof world>["handle"];

async function read(res: Response, limit = Number.POSITIVE_INFINITY): Promise<Frame[]> {
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
async function turn(
  handle: Handle,
  body: ReturnType<typeof input>,
  drop: number | undefined,
  resend: boolean,
): Promise<Frame[]> {
  const seen = await read(await handle(post(body)), drop);
  if (terminal(seen.at(-1))) return seen;
  if (resend && body.resume?.length) {
    for (;;) {
      const again = await read(await handle(post({ ...body, runId: crypto.randomUUID() })));
      const code = again.at(-1)?.data.code;
      if (code !== "RESUME_IN_PROGRESS") return again;
      await sleep(1);
    }
  }
  const last = seen.at(-1)?.id;
  const rest = await read(
    await handle(post({ kaboo_connect: { threadId: body.threadId } }, last ? { "last-event-id": last } : {})),
  );
  return [...seen, ...rest];
}

/** The whole conversation; `cut` drops the connection of request `cut.at` after `cut.after` frames. */
async function conversation(cut?: { at: number; after: number; resend: boolean }) {
  const w = world();
  const asked: string[] = [];
  const outcomes: string[] = [];
  const lengths: number[] = [];
  const drop = (i: number) => (cut && cut.at === i ? cut.after : undefined);
  const finish = (frames: Frame[]) => {
    lengths.push(frames.length);
    const end = frames.at(-1)!.data;
    outcomes.push(end.outcome?.type ?? end.code ?? "none");
    for (const i of end.outcome?.interrupts ?? []) asked.push(i.id);
    return end.outcome?.interrupts?.[0]?.id ?? "";
  };
  const start = input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "pay alice and bob" }] });
  const first = finish(await turn(w.handle, start, drop(0), false));
  const answer = (id: string, approved: boolean) =>
    input({ threadId: "t", resume: [{ interruptId: id, status: "resolved", payload: { approved } }] });
  const second = finish(await turn(w.handle, answer(first, true), drop(1), cut?.resend ?? false));
  finish(await turn(w.handle, answer(second, false), drop(2), cut?.resend ?? false));
  // The run that went on without its client has written its end by the time the client read it.
  const record = await w.store.load("t");
  return { sent: w.sent, asked, outcomes, record, lengths };
}

/** The transcript without ids and times. */
function shape(messages: unknown[]): unknown[] {
  return (messages as Record<string, unknown>[]).map((m) => {
    const { id: _id, toolCallId: _t, ...rest } = m;
    if (Array.isArray(rest.toolCalls))
      rest.toolCalls = (rest.toolCalls as { function: unknown }[]).map((c) => c.function);
    return rest;
  });
}

describe("property: a client disconnect at any point of a run at the edge", () => {
  test(`the same transcript, each approved call once, nothing reported cancelled, no question twice (${RUNS} runs)`, async () => {
    const baseline = await conversation();
    expect(baseline.sent).toEqual(["alice"]);
    expect(baseline.outcomes).toEqual(["interrupt", "interrupt", "success"]);
    expect(baseline.asked).toHaveLength(2);
    const events = 60;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: events }),
        fc.boolean(),
        async (at, after, resend) => {
          const run = await conversation({ at, after, resend });
          expect(run.sent).toEqual(["alice"]);
          expect(shape(run.record.messages)).toEqual(shape(baseline.record.messages));
          expect(JSON.stringify(run.record.messages)).not.toContain("cancelled");
          expect(run.outcomes).toEqual(baseline.outcomes);
          expect(new Set(run.asked).size).toBe(run.asked.length);
          expect(run.asked).toHaveLength(2);
        },
      ),
      { numRuns: RUNS },
    );
    // About 10 s alone; several times that on a loaded two-core machine.
  }, 180_000);
});
