/**
 * "Run it again" is about one lost claim, in real Deno processes on one Deno KV file. A process is
 * killed in the middle of an approved transfer; the same resume sent to another process asks
 * whether it went through, and the person answers "run it again". The process running that answer
 * is killed mid-transfer too (the transfer started again, its result never settled). The answering
 * request sent again to a third process, once the hold ran out, is asked again (a new question, about
 * the second lost claim) and runs nothing; told "it went through", the run ends. The bank's own
 * record in the KV file counts every transfer that started: two, each one the person asked for.
 */
import type { ChildProcess } from "node:child_process";
import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { body, ending, json, run, sleep, waitFor } from "./hosted-client.js";
import { denoFixture, read } from "./rerun-log-client.js";

const deno = denoFixture("rerun-entry-deno.ts", "kaboo-deno-run-again-");

const serve = deno.serve;
const bank = (url: string) => json<{ what: string; who: string }[]>(`${url}/bank`);
const count = async (url: string, what: string) => (await bank(url)).filter((e) => e.what === what).length;

/** The one question the run ended on. */
function asked(events: BaseEvent[]): string {
  expect(ending(events)).toBe("interrupt");
  const outcome = (events.at(-1) as unknown as { outcome: { interrupts: { id: string }[] } }).outcome;
  expect(outcome.interrupts).toHaveLength(1);
  return outcome.interrupts[0]?.id ?? "";
}

const resumeWith = (threadId: string, interruptId: string, payload: unknown) =>
  body(threadId, { resume: [{ interruptId, status: "resolved", payload }] });

/** Sends `resume` to `p`, waits for the transfer it runs to start (the `n`th), and kills `p`. */
async function killedMidTransfer(p: { url: string; child: ChildProcess }, resume: unknown, n: number) {
  const client = read(p.url, resume);
  await waitFor(
    () => count(p.url, "started"),
    (started) => started === n,
  );
  p.child.kill("SIGKILL");
  await client.done;
  // The dead run's hold (600 ms) runs out.
  await sleep(1_000);
}

describe("a Deno run again of a 'run it again' killed mid-transfer too", () => {
  test("asked again (a new question), the transfer never starts a third time", async () => {
    const db = deno.db("twice.db");
    const [a, b, c, d] = [await serve(db), await serve(db), await serve(db), await serve(db)];
    const paused = await run(
      a.url,
      body("t1", { messages: [{ id: "u1", role: "user", content: "pay alice 5 taking 5000" }] }),
    );
    const approve = resumeWith("t1", asked(paused), { approved: true });
    await killedMidTransfer(a, approve, 1);
    const q1 = asked(await run(b.url, approve));
    expect(q1).toContain("outcome_unknown");
    expect(await count(b.url, "started")).toBe(1);
    // "Run it again": the transfer starts again, and that process is killed before it ends.
    const runAgain = resumeWith("t1", q1, { action: "run_again" });
    await killedMidTransfer(c, runAgain, 2);
    // The answering request sent again: its answer was about the first lost claim, not this one.
    const q2 = asked(await run(d.url, runAgain));
    expect(q2).toContain("outcome_unknown");
    expect(q2).not.toBe(q1);
    expect(await count(d.url, "started")).toBe(2);
    expect(asked(await run(d.url, runAgain))).toBe(q2);
    const done = await run(d.url, resumeWith("t1", q2, { action: "treat_as_done" }));
    expect(ending(done)).toBe("success");
    expect(await count(d.url, "started")).toBe(2);
    expect(await count(d.url, "sent")).toBe(0);
  });
});
