import { type BaseEvent, EventType } from "@ag-ui/core";
import { describe, expect, test, vi } from "vitest";
import { encodeSseEvent, sseStream } from "../../../src/agui/edge/request/sse.js";

const decoder = new TextDecoder();
const content = (i: number): BaseEvent =>
  ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: `tök ${i}\n` }) as BaseEvent;
const finished = { type: EventType.RUN_FINISHED, threadId: "t", runId: "r" } as BaseEvent;
const frames = (events: BaseEvent[]) => events.map((e) => decoder.decode(encodeSseEvent(e))).join("");

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(decoder.decode(r.value));
  return chunks;
}

describe("sseStream batching", () => {
  test("events that are ready together arrive as one chunk, byte for byte the frames of each", async () => {
    const events = [...Array.from({ length: 10 }, (_, i) => content(i)), finished];
    async function* run() {
      yield* events;
    }
    const chunks = await readAll(sseStream(run(), { heartbeatMs: 0 }));
    expect(chunks.join("")).toBe(frames(events));
    expect(chunks).toHaveLength(1);
  });

  test("a chunk holds at most 256 frames, and nothing after the terminal event is read", async () => {
    const after = vi.fn();
    async function* run() {
      for (let i = 0; i < 600; i++) yield content(i);
      yield finished;
      after();
      yield content(-1);
    }
    const chunks = await readAll(sseStream(run(), { heartbeatMs: 0 }));
    expect(chunks.map((c) => c.split("\n\n").length - 1)).toEqual([256, 256, 89]);
    expect(chunks.join("")).toBe(frames([...Array.from({ length: 600 }, (_, i) => content(i)), finished]));
    expect(after).not.toHaveBeenCalled();
  });

  test("an event the run is still waiting for does not hold back those already there", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* run() {
      yield content(1);
      yield content(2);
      await gate; // the network: a macrotask away
      yield finished;
    }
    const reader = sseStream(run(), { heartbeatMs: 0 }).getReader();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe(frames([content(1), content(2)]));
    const second = reader.read();
    release();
    expect(decoder.decode((await second).value)).toBe(frames([finished]));
    expect((await reader.read()).done).toBe(true);
  });

  test("an error after ready events sends their frames, then RUN_ERROR, then closes", async () => {
    async function* run() {
      yield content(1);
      yield content(2);
      throw new Error("model went away");
    }
    const text = (await readAll(sseStream(run(), { heartbeatMs: 0 }))).join("");
    expect(text.startsWith(frames([content(1), content(2)]))).toBe(true);
    const last = JSON.parse(text.trim().split("\n\n").at(-1)!.slice("data: ".length));
    expect(last).toMatchObject({ type: EventType.RUN_ERROR, message: expect.stringContaining("model went away") });
  });

  test("a reader that cancels mid-run: onCancel once, and the run's finally still runs", async () => {
    const cleaned = vi.fn();
    const onCancel = vi.fn();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* run() {
      try {
        yield content(1);
        await gate;
        yield content(2);
        yield finished;
      } finally {
        cleaned();
      }
    }
    const reader = sseStream(run(), { heartbeatMs: 0, onCancel }).getReader();
    expect(decoder.decode((await reader.read()).value)).toBe(frames([content(1)]));
    await reader.cancel("gone");
    release();
    await vi.waitFor(() => expect(cleaned).toHaveBeenCalledOnce());
    expect(onCancel).toHaveBeenCalledExactlyOnceWith("gone");
  });
});
