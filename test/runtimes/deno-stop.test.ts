/**
 * A Stop outlives the Deno process that accepted it. Process A runs a turn, accepts a Stop (202:
 * written into the run's lease on the Deno KV file) and is killed before it wrote the run's end;
 * once the lease has run out, process B on the same file is sent the same request (the same run id)
 * and continues the run: it ends cancelled without calling the model. The Stop was that run's: the
 * next turn runs.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundleEntry } from "./bundle.js";
import { denoServer } from "./deno-process.js";
import { body, ending, open, run, sleep } from "./hosted-client.js";

let dir: string;
let file: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-deno-stop-"));
  file = join(dir, "stop.deno.mjs");
  writeFileSync(file, await bundleEntry("stop-entry-deno.ts"));
}, 60_000);
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const serve = (db: string, ...extra: string[]) => denoServer(file, dir, [db, ...extra], { children });

const stop = (url: string, threadId: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kaboo_cancel: { threadId } }),
  });

describe("a Stop outlives its Deno process", () => {
  test("Stop accepted, process killed before the run's end; another process sent the same request ends it cancelled", async () => {
    const db = join(dir, "stop.db");
    const a = await serve(db, "slow-end");
    const b = await serve(db);
    const story = body("t1", { messages: [{ id: "u1", role: "user", content: "a story" }] });
    const client = open(a.url, story);
    await client.until(EventType.TEXT_MESSAGE_CONTENT);
    expect((await stop(a.url, "t1")).status).toBe(202);
    // The run is cut at once and would write its end 3 s later: the process dies first.
    a.child.kill("SIGKILL");
    await client.done;
    // Past the dead run's lease (600 ms): the thread is free for the run again.
    await sleep(1_000);
    const again = await run(b.url, story);
    expect(ending(again)).toBe("cancelled");
    expect(again.some((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toBe(false);
    const snapshot = again.findLast((e) => e.type === EventType.MESSAGES_SNAPSHOT) as unknown as {
      messages: { id: string; role: string }[];
    };
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user"]);
    const next = await run(
      b.url,
      body("t1", { messages: [...snapshot.messages, { id: "u2", role: "user", content: "hello" }] }),
    );
    expect(ending(next)).toBe("success");
  });
});
