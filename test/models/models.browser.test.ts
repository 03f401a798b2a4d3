// Both models in real Chromium: the page's own fetch, ReadableStream and TextDecoder. The
// browser cannot start a loopback server, so the transcripts are fetched from the Vite server
// that serves the test page (same fixtures as the Node tests); the injected fetch records the
// request the model built and fetches the transcript with GET.
import { expect, test } from "vitest";
import { assembleResponse } from "../../src/agent/assemble-response.js";
import { AnthropicModel } from "../../src/models/anthropic.js";
import { ModelError, OpenAIChatModel } from "../../src/models/openai.js";

const spec = {
  name: "get_weather",
  description: "Weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
};
const user = [{ role: "user" as const, content: [{ type: "text" as const, text: "Weather?" }] }];
// Vite serves files outside its root under /@fs/ + absolute path.
const FIXTURES = `/@fs${new URL("./fixtures", import.meta.url).pathname}`;
const metrics = () => ({ usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }) as any;

function replay(path: string, seen: { url: string; init: RequestInit | undefined }[]): typeof fetch {
  return async (url, init) => {
    seen.push({ url: String(url), init });
    const res = await fetch(`${FIXTURES}/${path}`, init?.signal ? { signal: init.signal } : {});
    if (!res.ok) throw new Error(`fixture ${path}: HTTP ${res.status} at ${FIXTURES}`);
    return new Response(res.body, { status: res.status, headers: { "content-type": "text/event-stream" } });
  };
}

test("OpenAIChatModel assembles parallel tool calls in Chromium", async () => {
  const seen: { url: string; init: RequestInit | undefined }[] = [];
  const model = new OpenAIChatModel({
    baseUrl: "https://example.test/v1",
    model: "m",
    fetch: replay("openai/parallel-tools.sse", seen),
    retry: false,
  });
  const r = await assembleResponse(model.stream(user, { toolSpecs: [spec] }), () => {}, metrics(), undefined);
  expect(r).toMatchObject({ stopReason: "toolUse" });
  expect(r.message.content.map((b: any) => b.input)).toEqual([{ city: "Oslo" }, { city: "Rome" }]);
  expect(seen[0]!.url).toBe("https://example.test/v1/chat/completions");
  expect(JSON.parse(String(seen[0]!.init!.body)).stream).toBe(true);
});

test("AnthropicModel keeps thinking signatures in Chromium and opts in to browser access only when asked", async () => {
  const seen: { url: string; init: RequestInit | undefined }[] = [];
  const model = new AnthropicModel({
    model: "c",
    maxTokens: 8,
    fetch: replay("anthropic/thinking.sse", seen),
    retry: false,
    dangerouslyAllowBrowser: true,
  });
  const r = await assembleResponse(model.stream(user, { toolSpecs: [] }), () => {}, metrics(), undefined);
  expect(r.message.content[0]).toMatchObject({ type: "reasoning", signature: expect.stringMatching(/^EqQB/) });
  expect((seen[0]!.init!.headers as Record<string, string>)["anthropic-dangerous-direct-browser-access"]).toBe("true");
});

test("an HTTP error in Chromium is a ModelError with the provider's message", async () => {
  const model = new OpenAIChatModel({
    model: "m",
    retry: false,
    fetch: async () => new Response('{"error":{"message":"bad key","code":"invalid_api_key"}}', { status: 401 }),
  });
  const error = await assembleResponse(model.stream(user, { toolSpecs: [] }), () => {}, metrics(), undefined).catch(
    (e) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect(error).toMatchObject({ status: 401, providerMessage: "bad key" });
});
