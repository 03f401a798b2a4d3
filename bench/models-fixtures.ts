/**
 * The 50,000-chunk streams and the bare-parser baseline shared by bench/models.bench.ts and
 * bench/models.mjs.
 */
import { createParser } from "eventsource-parser";

export const N = 50_000;
const enc = new TextEncoder();

export function openAIChunks(): Uint8Array[] {
  const out: string[] = [];
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-b", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const half = N / 2;
  for (let i = 0; i < half; i++) out.push(chunk({ content: `word${i % 100} ` }));
  out.push(
    chunk({
      tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "a", arguments: '{"xs":[' } }],
    }),
  );
  out.push(
    chunk({
      tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "b", arguments: '{"xs":[' } }],
    }),
  );
  for (let i = 2; i < half - 4; i++)
    out.push(chunk({ tool_calls: [{ index: i % 2, function: { arguments: `${i},` } }] }));
  out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: "0]}" } }] }));
  out.push(chunk({ tool_calls: [{ index: 1, function: { arguments: "0]}" } }] }));
  out.push(chunk({}, "tool_calls"));
  out.push(
    `data: ${JSON.stringify({ id: "chatcmpl-b", choices: [], usage: { prompt_tokens: 1, completion_tokens: N, total_tokens: N + 1 } })}\n\n`,
  );
  out.push("data: [DONE]\n\n");
  return out.map((s) => enc.encode(s));
}

export function anthropicChunks(): Uint8Array[] {
  const out: string[] = [];
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  out.push(
    ev("message_start", {
      message: {
        id: "msg_b",
        type: "message",
        role: "assistant",
        content: [],
        model: "m",
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
  );
  out.push(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
  const half = N / 2;
  for (let i = 0; i < half; i++)
    out.push(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: `word${i % 100} ` } }));
  out.push(ev("content_block_stop", { index: 0 }));
  out.push(
    ev("content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_a", name: "a", input: {} } }),
  );
  out.push(ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '{"xs":[' } }));
  for (let i = 0; i < half - 10; i++)
    out.push(ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: `${i},` } }));
  out.push(ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "0]}" } }));
  out.push(ev("content_block_stop", { index: 1 }));
  out.push(ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: N } }));
  out.push(ev("message_stop", {}));
  return out.map((s) => enc.encode(s));
}

export function body(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < pieces.length) c.enqueue(pieces[i++]!);
      else c.close();
    },
  });
}
export const fetchOf =
  (pieces: Uint8Array[]): typeof fetch =>
  async () =>
    new Response(body(pieces), { headers: { "content-type": "text/event-stream" } });

/** The floor: read the same body and parse it with eventsource-parser, nothing else. */
export async function bareParser(pieces: Uint8Array[], json: boolean): Promise<number> {
  let n = 0;
  const parser = createParser({ onEvent: (e) => void (json && e.data !== "[DONE]" ? JSON.parse(e.data) : n++) });
  const reader = body(pieces).getReader();
  const decoder = new TextDecoder();
  for (let r = await reader.read(); !r.done; r = await reader.read())
    parser.feed(decoder.decode(r.value, { stream: true }));
  return n;
}

export async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}
