/**
 * A hung tool cannot hold its thread hostage (issue 31): store + secret + principal, a gated transfer
 * whose callback never returns and ignores its signal. Approved, it starts; the owner's Stop aborts its
 * signal, and once the grace has passed the call is abandoned: the run ends asking whether the transfer
 * went through, the thread is free (the same resume and a new turn are answered, never RESUME_IN_PROGRESS
 * or THREAD_BUSY), every later resume asks the same question, and the transfer never runs twice. A result
 * that comes after all is recorded and answers the question from the ledger.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, MemoryAuditLog, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { deferred } from "../../agent/helpers.js";
import { input } from "../helpers.js";
import { type Turn, post, quietLogger, resumeBody, send } from "./fixtures.js";

const GRACE_MS = 150;
const LEASE_MS = 300;

function setup(o: { timeoutMs?: number; again?: string } = {}) {
  const runs: string[] = [];
  const keys: string[] = [];
  const started = deferred();
  const late = deferred<string>();
  let aborted: unknown;
  const store = new MemoryThreadStore();
  const audit = new MemoryAuditLog();
  const agent = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults, lastUserText }) => {
          if (lastToolResults.length)
            return { text: `Done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join("; ")}` };
          return /pay/.test(lastUserText)
            ? { toolCalls: [{ name: "transfer", input: { to: "bob" } }] }
            : { text: "hi" };
        },
      }),
      tools: [
        tool({
          name: "transfer",
          description: "Send money.",
          inputSchema: z.object({ to: z.string() }),
          ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
          // A bank API without a timeout: it never answers, and it ignores its signal.
          callback: ({ to }, { signal, idempotencyKey }) => {
            runs.push(to);
            keys.push(idempotencyKey);
            // Run again by a person's answer, the bank answers at once (when the test says so).
            if (runs.length > 1 && o.again) return Promise.resolve(o.again);
            signal.addEventListener("abort", () => {
              aborted = signal.reason;
            });
            started.resolve();
            return late.promise;
          },
        }),
      ],
      hooks: [new InterruptHook(["transfer"], { secret: "hung-tool-secret" })],
      toolGraceMs: GRACE_MS,
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: store, audit },
    trust: { secret: "hung-tool-secret", principal: (r) => r.headers.get("x-user") ?? "" },
    timing: { runLeaseMs: LEASE_MS },
    logger: quietLogger(),
  });
  const ann = { "x-user": "ann" };
  return { runs, keys, started, late, store, audit, handle, ann, aborted: () => aborted };
}

/** Asks, approves and Stops the transfer while its callback hangs: the run that ends, and its outcome question. */
async function stoppedMidTransfer(s: ReturnType<typeof setup>) {
  const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay bob" };
  const asked = await send(s.handle, input({ threadId: "t", messages: [say] }), s.ann);
  const approving = await s.handle(post(resumeBody("t", asked, { approved: true }), s.ann));
  await s.started.promise;
  expect((await s.handle(post({ kaboo_cancel: { threadId: "t" } }, s.ann))).status).toBe(202);
  const ended = await read(approving);
  return { ended, question: outcomeQuestion(ended) };
}

/** The events of an SSE response, as `send` reads them. */
async function read(res: Response): Promise<Turn> {
  const text = await res.text();
  return send(async () => new Response(text, { status: 200 }), {});
}

const outcomeQuestion = (turn: Turn) =>
  turn.interrupts.find((i) => /outcome_unknown/.test(i.id)) as { id: string; reason?: unknown } | undefined;

describe("a hung tool, stopped", () => {
  test("the issue's scenario: Stop → the thread is free within grace + lease, the next resume asks, no second run", async () => {
    const s = setup();
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay bob" };
    const asked = await send(s.handle, input({ threadId: "t", messages: [say] }), s.ann);
    expect(asked.interrupts).toHaveLength(1);
    const approve = resumeBody("t", asked, { approved: true });
    const approving = await s.handle(post(approve, s.ann));
    await s.started.promise;
    const stop = await s.handle(post({ kaboo_cancel: { threadId: "t" } }, s.ann));
    expect(stop.status).toBe(202);
    const stoppedAt = performance.now();
    const ended = await read(approving);
    expect(performance.now() - stoppedAt).toBeLessThan(GRACE_MS + LEASE_MS);
    // The tool's signal aborted at the Stop; the run let the call go and asks whether it went through.
    expect(s.aborted()).toBeInstanceOf(DOMException);
    expect(ended.error).toBeUndefined();
    expect(ended.outcome).toBe("interrupt");
    const question = outcomeQuestion(ended);
    expect(question).toBeDefined();

    // The thread is free: the same resume is answered (the recorded outcome: the same question).
    const again = await send(s.handle, approve, s.ann);
    expect(again.error).toBeUndefined();
    expect(outcomeQuestion(again)?.id).toBe(question?.id);
    // So is the question itself: "cancel" closes the call, the transfer having started once.
    const cancelled = await send(
      s.handle,
      { ...resumeBody("t", ended, { action: "cancel" }, question?.id), runId: crypto.randomUUID() },
      s.ann,
    );
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.outcome).toBe("success");
    expect(JSON.stringify(cancelled.messages)).toContain("chose not to run");
    // And a new turn after it.
    const more = await send(
      s.handle,
      input({ threadId: "t", messages: [...cancelled.messages, { id: "u2", role: "user", content: "hi" }] }),
      s.ann,
    );
    expect(more.error).toBeUndefined();
    expect(s.runs).toEqual(["bob"]);
  });

  test("a result that comes after the call was let go is recorded: 'run it again' replays it, nothing runs twice", async () => {
    const s = setup();
    const { ended, question } = await stoppedMidTransfer(s);
    expect(question).toBeDefined();
    s.late.resolve("sent 5 to bob (late)");
    await new Promise((r) => setTimeout(r, 20));
    const again = await send(
      s.handle,
      { ...resumeBody("t", ended, { action: "run_again" }, question?.id), runId: crypto.randomUUID() },
      s.ann,
    );
    expect(again.error).toBeUndefined();
    expect(again.outcome).toBe("success");
    expect(JSON.stringify(again.messages)).toContain("sent 5 to bob (late)");
    expect(s.runs).toEqual(["bob"]);
    // The audit trail's execution entry holds the late result.
    const executions = (await s.audit.entries("t")).filter((e) => e.kind === "execution");
    expect(executions.some((e) => e.kind === "execution" && e.claim === "claimed" && e.status === "success")).toBe(
      true,
    );
  });

  test("'run it again' of a call let go runs under a claim of its own: the late result of the call let go overwrites nothing", async () => {
    const s = setup({ again: "sent 5 to bob (again)" });
    const { ended, question } = await stoppedMidTransfer(s);
    // The person says it did not go through: it runs again, by their answer, once.
    const runAgain = { ...resumeBody("t", ended, { action: "run_again" }, question?.id), runId: crypto.randomUUID() };
    const again = await send(s.handle, runAgain, s.ann);
    expect(again.outcome).toBe("success");
    expect(JSON.stringify(again.messages)).toContain("(again)");
    expect(s.runs).toEqual(["bob", "bob"]);
    // Then the bank's late answer to the call that was let go arrives.
    s.late.resolve("sent 5 to bob (late)");
    await new Promise((r) => setTimeout(r, 20));
    // The ledger keeps the result of the run again; the same answer sent again replays it and runs nothing.
    const key = s.keys[0] as string;
    expect(s.keys[1]).toBe(key);
    const row = await s.store.ledger("t").claim(key, {});
    expect(row).toMatchObject({ status: "done", result: { content: [{ text: "sent 5 to bob (again)" }] } });
    const replayed = await send(s.handle, runAgain, s.ann);
    expect(JSON.stringify(replayed.messages)).toContain("(again)");
    expect(JSON.stringify(replayed.messages)).not.toContain("(late)");
    expect(s.runs).toEqual(["bob", "bob"]);
  });

  test("'run it again' of a call let go, sent twice at once and by another person: it runs once more, once", async () => {
    const s = setup({ again: "sent 5 to bob (again)" });
    const { ended, question } = await stoppedMidTransfer(s);
    const runAgain = { ...resumeBody("t", ended, { action: "run_again" }, question?.id), runId: crypto.randomUUID() };
    // Another person may not answer the owner's question: refused, nothing runs.
    const mallory = await send(s.handle, { ...runAgain, runId: crypto.randomUUID() }, { "x-user": "mallory" });
    expect(mallory.error).toBeDefined();
    expect(s.runs).toEqual(["bob"]);
    // The same answer twice at once: one runs the transfer again, the other is refused or replays it.
    const both = await Promise.all([
      send(s.handle, runAgain, s.ann),
      send(s.handle, { ...runAgain, runId: crypto.randomUUID() }, s.ann),
    ]);
    expect(both.some((t) => t.outcome === "success")).toBe(true);
    expect(s.runs).toEqual(["bob", "bob"]);
    // The late result of the call let go, then the answer again: still the run again's result, nothing more runs.
    s.late.resolve("sent 5 to bob (late)");
    await new Promise((r) => setTimeout(r, 20));
    const replayed = await send(s.handle, runAgain, s.ann);
    expect(JSON.stringify(replayed.messages)).not.toContain("(late)");
    expect(s.runs).toEqual(["bob", "bob"]);
  });

  test("no Stop, only the tool's deadline: the run goes on past it, the model reads that the outcome is unknown", async () => {
    const s = setup({ timeoutMs: 50 });
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay bob" };
    const asked = await send(s.handle, input({ threadId: "t", messages: [say] }), s.ann);
    const started = performance.now();
    const done = await send(s.handle, resumeBody("t", asked, { approved: true }), s.ann);
    expect(performance.now() - started).toBeLessThan(50 + GRACE_MS + LEASE_MS);
    expect(done.error).toBeUndefined();
    expect(done.outcome).toBe("success");
    expect(s.aborted()).toMatchObject({ code: "TOOL_TIMEOUT", timeoutMs: 50 });
    expect(JSON.stringify(done.messages)).toMatch(/abandoned: whether it took effect is unknown/);
    const more = await send(
      s.handle,
      input({ threadId: "t", messages: [...done.messages, { id: "u2", role: "user", content: "hi" }] }),
      s.ann,
    );
    expect(more.error).toBeUndefined();
    expect(s.runs).toEqual(["bob"]);
  });
});
