// The client side of the re-run event-log tests (test/runtimes/*-rerun-log.test.ts): an SSE reader
// that keeps each frame's id, a reattach, and the checks every reattached stream must pass.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterAll, beforeAll, expect } from "vitest";
import { bundleEntry } from "./bundle.js";
import { denoOnce, denoServer } from "./deno-process.js";

/** One SSE frame: its `id:` and its event. */
export interface Frame {
  id: string | undefined;
  event: BaseEvent;
}

/** A stream being read: its frames so far, a wait for a count of one type, and its end. */
export interface Reading {
  frames: Frame[];
  until(type: string, count?: number): Promise<void>;
  done: Promise<void>;
}

/** POSTs `payload` (with `headers`) and reads the SSE answer as it comes, for at most `ms`. */
export function read(url: string, payload: unknown, headers: Record<string, string> = {}, ms = 40_000): Reading {
  const frames: Frame[] = [];
  const waiters: (() => void)[] = [];
  const parser = createParser({
    onEvent: (m) => {
      frames.push({ id: m.id, event: JSON.parse(m.data) as BaseEvent });
      for (const w of waiters.splice(0)) w();
    },
  });
  let ended = false;
  const done = (async () => {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(ms),
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // The server went away, or the stream never ended within `ms`: the frames so far are what the client has.
    } finally {
      ended = true;
      for (const w of waiters.splice(0)) w();
    }
  })();
  const until = async (type: string, count = 1) => {
    while (frames.filter((f) => f.event.type === type).length < count) {
      if (ended) {
        const seen = frames.map((f) => `${f.event.type}${"code" in f.event ? ` ${String(f.event.code)}` : ""}`);
        throw new Error(`the stream ended without ${count} ${type}: ${frames.length} frames (${seen.join(", ")})`);
      }
      await new Promise<void>((w) => waiters.push(w));
    }
  };
  return { frames, until, done };
}

/** Reattaches to a run after event `after` (through `Last-Event-ID` when `header`), read to its end. */
export async function reattach(url: string, threadId: string, runId: string, after: number, header = false) {
  const reading = header
    ? read(url, { kaboo_connect: { threadId } }, { "last-event-id": `${runId}:${after}` })
    : read(url, { kaboo_connect: { threadId, runId, after } });
  await reading.done;
  return reading.frames;
}

/** Reattaches after the event of SSE id `id` (`Last-Event-ID`), read to its end. */
export async function reattachFrom(url: string, threadId: string, id: string) {
  const reading = read(url, { kaboo_connect: { threadId } }, { "last-event-id": id });
  await reading.done;
  return reading.frames;
}

/** The index of a frame's id `<runId>:<n>` (or a run again's `<runId>:<n>.<attempt>`). */
export const indexOf = (f: Frame): number => Number.parseInt(f.id?.slice(f.id.lastIndexOf(":") + 1) ?? "", 10);

/** Where a run again's own events begin in a whole run (its CUSTOM `kaboo_run_again` marker), or -1. */
export const markerAt = (frames: Frame[]): number =>
  frames.findIndex((f) => f.event.type === "CUSTOM" && (f.event as { name?: string }).name === "kaboo_run_again");

/** Events that pass the AG-UI client's verifier, in this order. */
export async function expectVerified(events: BaseEvent[]): Promise<void> {
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
}

/** The last event is the run's end. */
export function expectEnded(frames: Frame[]): void {
  expect(["RUN_FINISHED", "RUN_ERROR"]).toContain(frames.at(-1)?.event.type);
}

/**
 * A whole run's stream from its start: ids 0, 1, 2, … in order (a run again's from its marker on
 * naming it), one terminal event at its end, valid AG-UI.
 */
export async function expectWholeRun(frames: Frame[], runId: string): Promise<void> {
  const again = markerAt(frames);
  const marker = again < 0 ? undefined : (frames[again]?.event as { value?: { attempt?: number } } | undefined);
  const attempt = marker?.value?.attempt ?? 0;
  const ids = frames.map((_, i) => (again < 0 || i < again ? `${runId}:${i}` : `${runId}:${i}.${attempt}`));
  expect(frames.map((f) => f.id)).toEqual(ids);
  expectEnded(frames);
  expect(frames.filter((f) => ["RUN_FINISHED", "RUN_ERROR"].includes(f.event.type))).toHaveLength(1);
  await expectVerified(frames.map((f) => f.event));
}

/** What a reattach after `after` got is exactly the rest of the whole run: in order, no gap, no duplicate. */
export function expectRest(rest: Frame[], whole: Frame[], after: number): void {
  expect(rest.map((f) => f.id)).toEqual(whole.slice(after + 1).map((f) => f.id));
  expect(rest.map((f) => f.event)).toEqual(whole.slice(after + 1).map((f) => f.event));
}

/**
 * A test file's Deno fixture: `entry` bundled into a temporary folder before its tests, and that folder and every
 * process started from it gone after them.
 * @param entry - The entry under test/runtimes/ (e.g. `"rerun-entry-deno.ts"`).
 * @param prefix - The temporary folder's name prefix.
 * @returns `db(name)`, a KV file's path in the folder, and `serve(db)`, a process serving the entry on it.
 */
export function denoFixture(entry: string, prefix: string) {
  const at = { dir: "", file: "" };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    at.dir = mkdtempSync(join(tmpdir(), prefix));
    at.file = join(at.dir, "entry.deno.mjs");
    writeFileSync(at.file, await bundleEntry(entry));
  }, 60_000);
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
    rmSync(at.dir, { recursive: true, force: true });
  });
  return {
    db: (name: string) => join(at.dir, name),
    serve: (db: string) => denoServer(at.file, at.dir, [db], { children }),
    freeze: (child: ChildProcess, db: string) => freezeUnlocked(child, () => writable(at.dir, db)),
  };
}

/**
 * Freezes a Deno process (SIGSTOP) at a moment it holds no write lock on its KV file. Deno KV keeps
 * a local database in one SQLite file: a process frozen inside a write transaction would hold the
 * file's lock, and every other process's writes would fail "database is locked" until it wakes, a
 * trait of a KV file shared on one disk (Deno Deploy's KV has no such lock), not of the runs under
 * test. So the freeze is retried, the process woken a moment in between, until another process can
 * write the file.
 */
async function freezeUnlocked(child: ChildProcess, probe: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 20; tries++) {
    child.kill("SIGSTOP");
    if (await probe()) return;
    child.kill("SIGCONT");
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 30));
  }
  throw new Error("the frozen process held its KV file's lock in 20 tries");
}

/** Whether another Deno process can write the KV file `db` (within 3 s). */
async function writable(dir: string, db: string): Promise<boolean> {
  const probe = join(dir, "probe.deno.mjs");
  writeFileSync(
    probe,
    "const kv = await Deno.openKv(Deno.args[0]);\n" +
      'await kv.set(["kaboo-probe"], Date.now());\n' +
      "kv.close();\n" +
      'console.log("true");\n',
  );
  try {
    return (await denoOnce(probe, dir, [db], 3_000)) === true;
  } catch {
    return false;
  }
}
