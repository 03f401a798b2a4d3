// errors.ts, retry.ts and sse.ts on their own, plus a property: however the bytes of a
// transcript are split on the wire, each provider yields the same events.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ModelStreamError } from "../../src/errors.js";
import { AnthropicModel } from "../../src/models/anthropic.js";
import {
  ContextWindowOverflowError,
  ModelError,
  errorFromFields,
  isContextOverflow,
  parseRetryAfter,
  readErrorFields,
} from "../../src/models/errors.js";
import { OpenAIChatModel } from "../../src/models/openai.js";
import { abortableSleep, backoffDelay, fetchWithRetry } from "../../src/models/retry.js";
import { sseEvents } from "../../src/models/sse.js";
import { bytesFetch, collect, fixture } from "./helpers.js";

describe("context overflow detection", () => {
  test.each([
    "This model's maximum context length is 8192 tokens. However, you requested 8203 tokens",
    "prompt is too long: 208310 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000",
    "request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it",
    "the request exceeds the available context size. try increasing the context size or enable context shift",
    "Context size has been exceeded.",
    "Requested tokens (2285) exceed context window of 2048",
    "input exceeds context length",
    "This endpoint's maximum context length is 131072 tokens.",
  ])("recognises %j", (message) => {
    expect(isContextOverflow(message)).toBe(true);
  });

  test.each(["Rate limit reached", "Invalid value for temperature", "Overloaded", "max_tokens must be at least 1"])(
    "does not flag %j",
    (message) => {
      expect(isContextOverflow(message)).toBe(false);
    },
  );

  test("codes alone are enough", () => {
    expect(isContextOverflow(undefined, "context_length_exceeded")).toBe(true);
    expect(isContextOverflow("whatever", undefined, "exceed_context_size_error")).toBe(true);
    expect(
      errorFromFields("openai", { message: "x", type: undefined, code: "context_length_exceeded" }),
    ).toBeInstanceOf(ContextWindowOverflowError);
  });
});

test("readErrorFields reads every provider's shape and survives junk", () => {
  expect(readErrorFields({ error: { message: "m", type: "t", code: 400 } })).toEqual({
    message: "m",
    type: "t",
    code: "400",
  });
  expect(readErrorFields({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toEqual({
    message: "Overloaded",
    type: "overloaded_error",
    code: undefined,
  });
  expect(readErrorFields({ object: "error", message: "vllm says", type: "BadRequestError", code: 400 })).toMatchObject({
    message: "vllm says",
  });
  expect(readErrorFields({ error: "plain" })).toMatchObject({ message: "plain" });
  fc.assert(fc.property(fc.jsonValue(), (v) => void readErrorFields(v)));
});

test("parseRetryAfter reads seconds, HTTP dates and retry-after-ms", () => {
  expect(parseRetryAfter(new Headers({ "retry-after": "5" }))).toBe(5);
  expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "5" }))).toBe(0.25);
  const now = Date.parse("2026-01-01T00:00:00Z");
  expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30);
  expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  expect(parseRetryAfter(new Headers())).toBeUndefined();
});

test("backoffDelay stays within [exp/2, exp] and under the cap", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 60000 }),
      fc.double({ min: 0, max: 0.9999, noNaN: true }),
      (attempt, base, max, r) => {
        const exp = Math.min(max, base * 2 ** (attempt - 1));
        const d = backoffDelay(attempt, base, max, () => r);
        return d >= Math.floor(exp / 2) && d <= Math.ceil(exp) && d <= max;
      },
    ),
  );
});

test("abortableSleep rejects with the signal's reason", async () => {
  const c = new AbortController();
  const p = abortableSleep(60_000, c.signal);
  c.abort(new Error("bye"));
  await expect(p).rejects.toThrow("bye");
  await expect(abortableSleep(1, AbortSignal.abort(new Error("early")))).rejects.toThrow("early");
});

test("fetchWithRetry does not retry a 4xx other than 429", async () => {
  let calls = 0;
  const send = async () => (calls++, new Response('{"error":{"message":"bad key"}}', { status: 401 }));
  const error = await fetchWithRetry(send, { provider: "openai", retry: { baseDelayMs: 1 } }).catch((e) => e);
  expect(error).toBeInstanceOf(ModelError);
  expect(error).toMatchObject({ status: 401, providerMessage: "bad key" });
  expect(calls).toBe(1);
});

test("a non-JSON error body keeps its text as the message", async () => {
  const send = async () => new Response("<html>Bad Gateway</html>", { status: 502, statusText: "Bad Gateway" });
  const error = await fetchWithRetry(send, { provider: "anthropic", retry: false }).catch((e) => e);
  expect(error).toMatchObject({ status: 502, providerMessage: "<html>Bad Gateway</html>" });
  expect(error.message).toMatch(/HTTP 502 Bad Gateway/);
});

describe("sseEvents", () => {
  test("drops an event cut off by the end of the body", async () => {
    const enc = new TextEncoder();
    const res = await bytesFetch([enc.encode("data: one\n\ndata: tw")])("x");
    const events = [];
    for await (const e of sseEvents(res.body!)) events.push(e.data);
    expect(events).toEqual(["one"]);
  });

  test("a body that errors is a ModelStreamError", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("data: one\n\n"));
        c.error(new TypeError("terminated"));
      },
    });
    const run = async () => {
      for await (const _ of sseEvents(body));
    };
    await expect(run()).rejects.toBeInstanceOf(ModelStreamError);
  });

  test("stopping early cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of sseEvents(body)) break;
    expect(cancelled).toBe(true);
  });
});

const transcripts = [
  ["openai", "text.sse"],
  ["openai", "parallel-tools.sse"],
  ["openai", "reasoning-openrouter.sse"],
  ["anthropic", "tools.sse"],
  ["anthropic", "thinking.sse"],
] as const;

test.each(transcripts)("%s %s: any split of the bytes gives the same events", async (provider, name) => {
  const bytes = new TextEncoder().encode(fixture(provider, name));
  const run = (pieces: Uint8Array[]) => {
    const f = bytesFetch(pieces);
    const m =
      provider === "openai"
        ? new OpenAIChatModel({ model: "m", fetch: f, retry: false })
        : new AnthropicModel({ model: "m", maxTokens: 1, fetch: f, retry: false });
    return collect(m.stream([], { toolSpecs: [] }));
  };
  const whole = await run([bytes]);
  expect(whole.at(-1)?.type).toBe("metadata");
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), async (cuts) => {
      const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
      const pieces = at.slice(1).map((end, i) => bytes.subarray(at[i]!, end));
      expect(await run(pieces)).toEqual(whole);
    }),
    { numRuns: 60 },
  );
});

test("any JSON value as a chunk gives events or a typed error, never a crash", async () => {
  const { OpenAIStreamDecoder } = await import("../../src/models/openai-stream.js");
  const { AnthropicStreamDecoder } = await import("../../src/models/anthropic-stream.js");
  const { KabooError } = await import("../../src/errors.js");
  const chunk = fc.oneof(
    fc.jsonValue(),
    fc.record({
      choices: fc.array(fc.record({ delta: fc.jsonValue(), finish_reason: fc.jsonValue() }, { requiredKeys: [] })),
    }),
    fc.record({
      type: fc.constantFrom("content_block_start", "content_block_delta", "message_delta", "error"),
      index: fc.jsonValue(),
      delta: fc.jsonValue(),
      content_block: fc.jsonValue(),
    }),
  );
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 8 }), (chunks) => {
      for (const decoder of [new OpenAIStreamDecoder(), new AnthropicStreamDecoder()]) {
        const out: unknown[] = [];
        try {
          for (const c of chunks) decoder.push({ data: JSON.stringify(c) }, out as never[]);
        } catch (e) {
          if (!(e instanceof KabooError)) throw e;
        }
      }
    }),
    { numRuns: 300 },
  );
});
