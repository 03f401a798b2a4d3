/**
 * A body is never read past its limit, whatever its `content-length` says: the handler counts bytes as
 * they arrive and cancels the source once they pass `maxBodyBytes` (a lying header used to make it read
 * the whole stream before refusing it).
 */
import { describe, expect, test } from "vitest";
import { bankHandler, newBank } from "./fixtures.js";

const CHUNK = 64 * 1024;
const TOTAL = 64 * 1024 * 1024;

/** A 64 MiB body, 64 KiB a pull, that counts what was pulled and whether it was cancelled. */
function countingBody() {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= TOTAL) return controller.close();
      seen.pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK).fill(0x20));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

function request(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Request {
  return new Request("http://edge.test/agui", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("the edge handler reads at most maxBodyBytes of a body", () => {
  const maxBodyBytes = 256 * 1024;
  const handle = bankHandler(newBank(), { trust: { secret: "body-limit-secret" }, limits: { maxBodyBytes } });

  test.each([
    ["a content-length that says 100", { "content-length": "100" }],
    ["a content-length exactly at the limit", { "content-length": String(maxBodyBytes) }],
    ["no content-length", {}],
  ])("%s while the stream carries 64 MiB: 413 after the limit, the source cancelled", async (_, headers) => {
    const { stream, seen } = countingBody();
    const res = await handle(request(stream, headers));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "body_too_large" });
    // The stream's queue may hold a chunk or two ahead of the reader; never the rest of the 64 MiB.
    expect(seen.pulled).toBeLessThanOrEqual(maxBodyBytes + 4 * CHUNK);
    expect(seen.cancelled).toBe(true);
  });

  test("a body within its declared length is still read whole and answered", async () => {
    const text = JSON.stringify({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {} });
    const bytes = new TextEncoder().encode(text);
    const res = await handle(
      request(
        new ReadableStream({
          start(c) {
            c.enqueue(bytes.slice(0, 10));
            c.enqueue(bytes.slice(10));
            c.close();
          },
        }),
        { "content-length": String(bytes.byteLength), accept: "text/event-stream" },
      ),
    );
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
