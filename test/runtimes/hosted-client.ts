// The client side of the hosted-run tests (test/runtimes/hosted-*.test.ts): a workerd running
// hosted-entry-worker.ts, and requests to it over HTTP as a browser would send them.
import type { BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect } from "vitest";
import { runBody } from "../fixtures/run-input.js";
import { bundleEntry } from "./bundle.js";
import type { ThreadRecord } from "../../src/stores/thread-store.js";

/** A workerd with the hosted entry (on `persist`'s storage when given). */
export async function worker(
  script: string,
  persist?: string,
  bindings: Record<string, string> = {},
): Promise<{ mf: Miniflare; url: string }> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    bindings,
    durableObjects: {
      THREAD: { className: "KabooThread", useSQLite: true },
      BANK: { className: "Bank", useSQLite: true },
    },
    ...(persist ? { durableObjectsPersist: persist } : {}),
    port: 0,
    host: "127.0.0.1",
  });
  const url = (await mf.ready).toString().replace(/\/$/, "");
  return { mf, url };
}

/**
 * A test file's hosted world: the entry bundled once before its tests and a folder for workerd's
 * storage (removed after them). `storage(name)` is a path in that folder; `worker()` starts a
 * workerd with the entry.
 */
export function hostedWorld(prefix: string) {
  let dir = "";
  let script = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    script = await bundleEntry("hosted-entry-worker.ts");
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    storage: (name: string) => join(dir, name),
    worker: (persist?: string, bindings?: Record<string, string>) => worker(script, persist, bindings),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run's body on `threadId` with a fresh run id. */
export const body = (threadId: string, over: Record<string, unknown> = {}) => runBody(threadId, over);

/** POSTs `payload` and reads the whole SSE answer. */
export async function run(url: string, payload: unknown, headers: Record<string, string> = {}): Promise<BaseEvent[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
  });
  const events: BaseEvent[] = [];
  createParser({ onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent) }).feed(await res.text());
  return events;
}

/** A run being read: its events so far, a wait for one of a type, and its end. */
export interface OpenRun {
  events: BaseEvent[];
  /** Resolves once an event of `type` has come. */
  until(type: string): Promise<void>;
  /** Resolves when the stream ends (or breaks). */
  done: Promise<void>;
}

/** POSTs `payload` and reads the SSE answer as it comes. */
export function open(url: string, payload: unknown): OpenRun {
  const events: BaseEvent[] = [];
  const waiters: (() => void)[] = [];
  const parser = createParser({
    onEvent: (m) => {
      events.push(JSON.parse(m.data) as BaseEvent);
      for (const w of waiters.splice(0)) w();
    },
  });
  const done = (async () => {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // The server went away: the events so far are what the client has.
    } finally {
      for (const w of waiters.splice(0)) w();
    }
  })();
  let ended = false;
  void done.then(() => {
    ended = true;
  });
  const until = async (type: string) => {
    while (!events.some((e) => e.type === type)) {
      if (ended) throw new Error(`the stream ended without ${type}: ${JSON.stringify(events.map((e) => e.type))}`);
      await new Promise<void>((w) => waiters.push(w));
    }
  };
  return { events, until, done };
}

export const json = async <T>(url: string) => (await (await fetch(url)).json()) as T;
export const bank = (url: string) => json<{ what: string; who: string }[]>(`${url}/bank`);
export const load = (url: string, thread: string) => json<ThreadRecord>(`${url}/load?thread=${thread}`);

export async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}

/** The outcome of a run's RUN_FINISHED (its last event), or the code of its RUN_ERROR. */
export function ending(events: BaseEvent[]): string {
  const last = events.at(-1) as unknown as { type: string; outcome?: { type: string }; code?: string } | undefined;
  if (last?.type === "RUN_FINISHED") return last.outcome?.type ?? "success";
  if (last?.type === "RUN_ERROR") return `error:${last.code}`;
  return `unended:${last?.type}`;
}

/** Pauses "pay alice 5 taking `ms`" and returns the approving resume. */
export async function pausedResume(url: string, threadId: string, ms: number, headers: Record<string, string> = {}) {
  const first = await run(
    url,
    body(threadId, { messages: [{ id: "u1", role: "user", content: `pay alice 5 taking ${ms}` }] }),
    headers,
  );
  const finished = first.at(-1) as unknown as { outcome: { type: string; interrupts: { id: string }[] } };
  expect(finished.outcome.type).toBe("interrupt");
  const interruptId = finished.outcome.interrupts[0]!.id;
  return body(threadId, { resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
}

/** The texts of the transcript's tool results. */
export const toolTexts = (r: ThreadRecord) =>
  (r.messages as { role: string; content?: unknown }[]).filter((m) => m.role === "tool").map((m) => m.content);

/** The id of the record's pending outcome_unknown question. */
export function unknownQuestion(record: ThreadRecord): string | undefined {
  const state = record.session as { interrupt_state?: { interrupts: Record<string, unknown> } } | null;
  return Object.keys(state?.interrupt_state?.interrupts ?? {}).find((id) => id.includes("outcome_unknown"));
}

/** Sends a run and drops the connection once `until()` holds (throws when it has not within 30 s). */
export async function runThenDrop(
  url: string,
  payload: unknown,
  until: () => Promise<boolean>,
  headers: Record<string, string> = {},
): Promise<void> {
  const client = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
    signal: client.signal,
  });
  const reading = res.text().catch(() => undefined);
  const end = Date.now() + 30_000;
  try {
    while (!(await until())) {
      if (Date.now() > end) throw new Error(`runThenDrop: not reached in 30 s (HTTP ${res.status})`);
      await sleep(20);
    }
  } finally {
    client.abort();
    await reading;
  }
}
