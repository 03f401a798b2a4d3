/**
 * Scale through the Durable Object store: the Cloudflare Worker example in workerd (miniflare), 100
 * threads paused at once, then every thread resumed twice at once (200 concurrent resumes). Asserts
 * no cross-talk (each thread's transcript and booking are its own) and exactly 100 executions.
 * Latencies are measured, never asserted: they go to .tmp/edge-scale.json (`node bench/edge-scale.mjs`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, bundleEntry } from "./bundle.js";

const THREADS = Number(process.env.KABOO_SCALE_THREADS ?? 100);
let dir: string;
let bank: Server;
let mf: Miniflare;
let url = "";
const booked: { to: string; amount: number }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kaboo-edge-scale-"));
  bank = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      booked.push(JSON.parse(body) as { to: string; amount: number });
      res.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((ok) => bank.listen(0, "127.0.0.1", ok));
  mf = new Miniflare({
    modules: true,
    script: await bundleEntry(join(ROOT, "examples/cloudflare-worker/src/worker.ts")),
    compatibilityDate: "2025-04-01",
    compatibilityFlags: ["enable_request_signal"],
    durableObjects: { KABOO_THREAD: { className: "KabooThread", useSQLite: true } },
    durableObjectsPersist: join(dir, "do"),
    bindings: { BANK_API_URL: `http://127.0.0.1:${(bank.address() as AddressInfo).port}/book` },
    port: 0,
    host: "127.0.0.1",
  });
  url = (await mf.ready).toString().replace(/\/$/, "");
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
  await new Promise((ok) => bank.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  ms: number;
  events: BaseEvent[];
}

/**
 * One HttpAgent-shaped POST, timed to the end of its stream. A fresh connection each (no keep-alive):
 * a pooled socket the server just closed fails the next request with "other side closed".
 */
async function post(body: unknown, user: string): Promise<Answer> {
  const started = performance.now();
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", accept: "text/event-stream", "x-kaboo-user": user },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (data += c));
        res.on("end", () => resolve(data));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
  const ms = performance.now() - started;
  const events: BaseEvent[] = [];
  createParser({ onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent) }).feed(text);
  return { ms, events };
}

const last = <T>(events: BaseEvent[], type: EventType) => events.findLast((e) => e.type === type) as T | undefined;
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1));
};

test(`${THREADS} threads paused at once, then each resumed twice at once: no cross-talk, exactly ${THREADS} executions`, async () => {
  const threads = Array.from({ length: THREADS }, (_, i) => ({
    threadId: `scale-${i}-${crypto.randomUUID()}`,
    to: `payee${i}`,
    amount: i + 1,
  }));
  const base = { tools: [], context: [], forwardedProps: { kaboo_grants: [] } };
  const pauseBody = (threadId: string, text: string) => ({
    ...base,
    threadId,
    runId: crypto.randomUUID(),
    state: {},
    messages: [{ id: "u", role: "user", content: text }],
  });
  // The same request one at a time, for scale: what a single request costs on this machine.
  const alone: number[] = [];
  for (let i = 0; i < 10; i++)
    alone.push((await post(pauseBody(`alone-${i}-${crypto.randomUUID()}`, "pay solo 1"), "solo")).ms);
  const pauses = await Promise.all(
    threads.map((t) => post(pauseBody(t.threadId, `pay ${t.to} ${t.amount}`), `user${t.to}`)),
  );
  const interrupts = pauses.map(
    (p) =>
      last<{ outcome?: { interrupts?: { id: string }[] } }>(p.events, EventType.RUN_FINISHED)?.outcome?.interrupts ??
      [],
  );
  expect(interrupts.map((i) => i.length)).toEqual(threads.map(() => 1));
  // Each thread's question is about its own payee and amount.
  pauses.forEach((p, i) => {
    const messages = last<{ messages: { toolCalls?: { function: { arguments: string } }[] }[] }>(
      p.events,
      EventType.MESSAGES_SNAPSHOT,
    )!.messages;
    const args = messages.flatMap((m) => m.toolCalls ?? []).map((c) => JSON.parse(c.function.arguments));
    expect(args).toEqual([{ to: threads[i]!.to, amount: threads[i]!.amount }]);
  });
  expect(booked).toEqual([]);

  const resumes = await Promise.all(
    threads.flatMap((t, i) =>
      [0, 1].map(() =>
        post(
          {
            ...base,
            threadId: t.threadId,
            runId: crypto.randomUUID(),
            state: {},
            messages: [],
            resume: [{ interruptId: interrupts[i]![0]!.id, status: "resolved", payload: { approved: true } }],
          },
          `user${t.to}`,
        ),
      ),
    ),
  );
  const endings = resumes.map((r) => last<{ code: string }>(r.events, EventType.RUN_ERROR)?.code ?? "finished");
  for (const e of endings) expect(["finished", "RESUME_IN_PROGRESS"]).toContain(e);
  // Exactly one booking per thread, each its own.
  expect(booked.length).toBe(THREADS);
  expect([...booked].sort((a, b) => a.amount - b.amount)).toEqual(threads.map((t) => ({ to: t.to, amount: t.amount })));
  resumes.forEach((r, k) => {
    if (endings[k] !== "finished") return;
    const t = threads[Math.floor(k / 2)]!;
    const text = JSON.stringify(last(r.events, EventType.MESSAGES_SNAPSHOT));
    expect(text).toContain(t.to);
    expect(text.match(/payee\d+/g)?.every((p) => p === t.to)).toBe(true);
  });

  const figures = {
    threads: THREADS,
    executions: booked.length,
    crossTalk: 0,
    resumesRefusedInProgress: endings.filter((e) => e === "RESUME_IN_PROGRESS").length,
    resumesAnsweredFromRecord: endings.filter((e) => e === "finished").length - THREADS,
    pauseAloneMs: { p50: percentile(alone, 50), max: percentile(alone, 100) },
    pauseMs: {
      p50: percentile(
        pauses.map((p) => p.ms),
        50,
      ),
      p99: percentile(
        pauses.map((p) => p.ms),
        99,
      ),
    },
    resumeMs: {
      p50: percentile(
        resumes.map((r) => r.ms),
        50,
      ),
      p99: percentile(
        resumes.map((r) => r.ms),
        99,
      ),
    },
  };
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  writeFileSync(join(ROOT, ".tmp/edge-scale.json"), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`edge scale (Durable Objects in miniflare): ${JSON.stringify(figures)}`);
}, 120_000);
