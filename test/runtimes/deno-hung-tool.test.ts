/**
 * A hung tool at the edge in Deno, over Deno KV: an approved transfer that never returns and ignores its
 * signal. The owner's Stop (202) aborts its signal; after the grace (300 ms) the call is abandoned, the run
 * ends asking whether it went through, and the thread is free. The abandoned mark is in the database:
 * another process on the same file, sent the same resume, asks the same question, and answering it there
 * with "cancel" closes the call. The transfer started once, in the first process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, bundleEntry } from "./bundle.js";
import { body, ending, json, open, run, waitFor } from "./hosted-client.js";

let dir: string;
let file: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-deno-hung-"));
  file = join(dir, "hung.deno.mjs");
  writeFileSync(file, await bundleEntry("hung-tool-entry-deno.ts"));
}, 60_000);
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function serve(db: string): Promise<string> {
  const args = ["run", "--unstable-kv", `--allow-read=${dir}`, `--allow-write=${dir}`, "--allow-net=127.0.0.1"];
  const child = spawn(
    join(ROOT, "node_modules/.bin/deno"),
    [...args, "--no-prompt", "--no-config", "--no-npm", "--no-remote", file, db],
    {
      cwd: dir,
      env: { ...process.env, DENO_DIR: join(dir, "deno-cache"), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`deno exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
  });
  return `http://127.0.0.1:${port}`;
}

type Finished = { outcome?: { type: string; interrupts?: { id: string }[] } };
const questionOf = (events: unknown[]) =>
  (events.at(-1) as Finished).outcome?.interrupts?.find((i) => i.id.includes("outcome_unknown"))?.id;
const startedIn = async (url: string) => (await json<{ started: number }>(`${url}/started`)).started;

describe("a hung tool in Deno (Deno KV)", () => {
  test("Stop: abandoned after the grace, the thread free; another process asks the same question and closes it", async () => {
    const db = join(dir, "hung.db");
    const [a, b] = await Promise.all([serve(db), serve(db)]);
    const asked = await run(a, body("t", { messages: [{ id: "u1", role: "user", content: "pay bob" }] }));
    const approval = (asked.at(-1) as Finished).outcome?.interrupts?.[0]?.id;
    const resume = body("t", { resume: [{ interruptId: approval, status: "resolved", payload: { approved: true } }] });
    const client = open(a, resume);
    await waitFor(
      () => startedIn(a),
      (n) => n === 1,
    );
    const stop = await fetch(a, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kaboo_cancel: { threadId: "t" } }),
    });
    expect(stop.status).toBe(202);
    const stoppedAt = Date.now();
    await client.done;
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(ending(client.events)).toBe("interrupt");
    const question = questionOf(client.events);
    expect(question).toBeDefined();
    // Another process, the same resume: the recorded outcome, the same question.
    const again = await run(b, resume);
    expect(ending(again)).toBe("interrupt");
    expect(questionOf(again)).toBe(question);
    const cancel = { interruptId: question, status: "resolved", payload: { action: "cancel" } };
    const closed = await run(b, body("t", { resume: [cancel] }));
    expect(ending(closed)).toBe("success");
    expect(JSON.stringify(closed)).toContain("chose not to run");
    expect([await startedIn(a), await startedIn(b)]).toEqual([1, 0]);
  }, 60_000);
});
