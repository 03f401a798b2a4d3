/**
 * Two Node processes on one PostgreSQL database, shared by many people at once: a four-eyes transfer
 * whose two approvals go to different processes runs once, after the second (also when the two
 * approvers race, each on their own process); 100 threads' turns sent at once, split across the two
 * processes, each end, and each thread's record, answer and event log hold only its own messages.
 * B serves the plain handler, C the same handler through PostgresRunHost with its sweeper running.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresThreadStore } from "../../../src/stores/postgres.js";
import { input } from "../helpers.js";
import { resumeBody, send, type Turn } from "./fixtures.js";
import { approvedBy } from "./four-eyes.js";
import { type Proc, type Processes, processes, until } from "./pg-processes.js";

let p: Processes | undefined;
let b: Proc;
let c: Proc;

beforeAll(async () => {
  p = await processes();
  [b, c] = await Promise.all([p.start("B"), p.start("C", { HOSTED: "1", SWEEP_MS: "500" })]);
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

const transfersTo = async (payee: string) =>
  (await p!.db.query("SELECT process FROM test_transfers WHERE payee = $1", [payee])).rows.map((r) => r.process);

const as = (who: string) => ({ "x-user": who });
const ask = (at: Proc, thread: string, payee: string) =>
  send(
    at.handle,
    input({ threadId: thread, messages: [{ id: "m1", role: "user", content: `wire ${payee} 20000` }] }),
    as("ann"),
  );
const approve = (at: Proc, thread: string, turn: Turn, who: string) =>
  send(at.handle, { ...resumeBody(thread, turn, { approved: true }), runId: crypto.randomUUID() }, as(who));

describe("two processes, one database, many people", () => {
  test("four eyes: bob approves through one process, carol through the other; the transfer runs once, after carol", async () => {
    const payee = `mallory${Date.now()}`;
    const thread = `q-${crypto.randomUUID()}`;
    const asked = await ask(b, thread, payee);
    expect(asked.outcome).toBe("interrupt");
    const bob = await approve(c, thread, asked, "bob");
    expect(bob.outcome).toBe("interrupt");
    expect(approvedBy(bob)).toEqual(["bob"]);
    expect(await transfersTo(payee)).toEqual([]);
    // Bob again, through the other process: still one approval.
    const again = await approve(b, thread, asked, "bob");
    expect(again.outcome).not.toBe("success");
    expect(await transfersTo(payee)).toEqual([]);
    const carol = await approve(b, thread, bob, "carol");
    expect(carol.outcome).toBe("success");
    expect(await transfersTo(payee)).toEqual(["B"]);
    // Both answers once more, each through the process it did not use: nothing moves again.
    await approve(c, thread, bob, "carol").catch(() => undefined);
    await approve(b, thread, asked, "bob").catch(() => undefined);
    expect(await transfersTo(payee)).toEqual(["B"]);
  }, 60_000);

  test("four eyes, the two approvers racing on two processes: one is counted, nothing runs on one approval, then once", async () => {
    for (let trial = 0; trial < 3; trial++) {
      const payee = `mallory${trial}x${Date.now()}`;
      const thread = `q-${crypto.randomUUID()}`;
      const asked = await ask(c, thread, payee);
      const [bob, carol] = await Promise.all([approve(b, thread, asked, "bob"), approve(c, thread, asked, "carol")]);
      expect(await transfersTo(payee)).toEqual([]);
      expect([bob, carol].filter((t) => t.outcome === "success")).toEqual([]);
      const counted = [bob, carol].filter((t) => approvedBy(t)?.length === 1);
      expect(counted, JSON.stringify([bob.error, carol.error])).toHaveLength(1);
      const won = counted[0]!;
      // The one not counted answers again, through the process the winner did not use.
      const last = won === bob ? await approve(c, thread, bob, "carol") : await approve(b, thread, carol, "bob");
      expect(last.outcome).toBe("success");
      expect(await transfersTo(payee)).toHaveLength(1);
    }
  }, 60_000);

  test("100 threads' turns at once, split across the two processes: every run ends, and each thread holds only its own messages", async () => {
    const threads = Array.from({ length: 100 }, (_, i) => ({
      thread: `n-${crypto.randomUUID()}`,
      word: `w${i}x${crypto.randomUUID().slice(0, 8)}`,
    }));
    const took: number[] = [];
    const turns = await Promise.all(
      threads.map(async ({ thread, word }, i) => {
        const at = Date.now();
        const body = input({
          threadId: thread,
          messages: [{ id: `m-${word}`, role: "user", content: `hello ${word}` }],
        });
        const turn = await send((i % 2 ? c : b).handle, body, as(`u${i}`));
        took.push(Date.now() - at);
        return { turn, runId: body.runId };
      }),
    );
    const store = new PostgresThreadStore(p!.db);
    for (const [i, { thread, word }] of threads.entries()) {
      const { turn, runId } = turns[i]!;
      expect(turn.outcome, JSON.stringify(turn.error)).toBe("success");
      const said = [`hello ${word}`, `You said: hello ${word}`];
      expect(turn.messages.map((m) => m.content)).toEqual(said);
      const record = await store.load(thread);
      expect(record.owner).toBe(`u${i}`);
      expect(record.lease).toBeNull();
      expect(record.messages.map((m) => (m as { content?: unknown }).content)).toEqual(said);
      // The log's last batch is written as the run ends, a moment after RUN_FINISHED went out.
      await until(async () => (await store.readEvents(thread, runId, -1))?.ended === true, `${thread}'s log ended`);
      const logged = await store.readEvents(thread, runId, -1);
      const other = JSON.stringify(logged?.events).match(/w\d+x[0-9a-f]{8}/g) ?? [];
      expect(new Set(other)).toEqual(new Set([word]));
    }
    took.sort((x, y) => x - y);
    console.log(`100 threads on two processes: p50 ${took[49]} ms, p99 ${took[98]} ms`);
  }, 60_000);
});
