/**
 * Tool results are bounded in depth and in media bytes, whatever sent them: a part that breaks a
 * bound is dropped with a note, the rest is kept, and the status is the tool's own. A call that ran
 * is never reported as failed because our code could not read its result.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { Agent, type Message, type ToolResultBlock } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { connectMcp, type McpConnection } from "../../src/mcp/index.js";
import { expectConsistentTranscript } from "../agent/helpers.js";
import { type HostileBehaviour, type HostileServer, startHostileServer, toolDef } from "./hostile.js";

const open: { server: HostileServer; conn?: McpConnection }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.conn?.close().catch(() => undefined);
    await o.server.stop();
  }
});

async function hostile(behaviour: HostileBehaviour) {
  const server = await startHostileServer(behaviour);
  const entry: { server: HostileServer; conn?: McpConnection } = { server };
  open.push(entry);
  entry.conn = await connectMcp({ url: server.url, logger: { warn: vi.fn(), error: vi.fn() } });
  return entry.conn;
}

/** JSON text of an object nested `depth` levels deep (too deep for JSON.stringify to write here). */
const deep = (depth: number) => `${'{"next":'.repeat(depth)}{"amount":5}${"}".repeat(depth)}`;

const textOf = (r: ToolResultBlock) => r.content.map((p) => (p.type === "text" ? p.text : `<${p.type}>`)).join("\n");
const results = (messages: readonly Message[]) =>
  messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
const mediaBytes = (messages: readonly Message[]) =>
  results(messages)
    .flatMap((r) => r.content)
    .reduce((n, p) => n + (p.type === "image" ? (p.data?.length ?? 0) * 0.75 : 0), 0);

/** 100 KB of base64 image data. */
const image = () => ({ type: "image", data: "A".repeat(136_536), mimeType: "image/png" });

describe("an MCP result that breaks a bound", () => {
  test('a 5,000-deep structuredContent beside "charged $5" reaches the model as "charged $5" plus a note, as a success', async () => {
    const conn = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({
        rawResult: `{"content":[{"type":"text","text":"charged $5"}],"structuredContent":${deep(5_000)}}`,
      }),
    });
    const seen: string[] = [];
    const model = new ScriptedModel({
      script: ({ lastToolResults }) => {
        if (!lastToolResults.length) return { toolCalls: [{ name: "charge", input: {} }] };
        seen.push(lastToolResults.map((r) => textOf(r)).join("\n"));
        return { text: "done" };
      },
    });
    const agent = new Agent({ model, tools: await conn.tools() });
    const result = await agent.invoke("charge me");
    expect(result.stopReason).toBe("endTurn");
    expectConsistentTranscript(agent.messages);
    const [r] = results(agent.messages);
    expect(r?.status).toBe("success");
    expect(r?.content[0]).toEqual({ type: "text", text: "charged $5" });
    expect(r?.structuredContent).toBeUndefined();
    expect(seen[0]).toMatch(/^charged \$5\n\[.*structured.*deeper than 64 levels.*\]$/s);
    expect(seen[0]).not.toMatch(/call stack|Error/);
  });

  test("isError from the server stays the status when a part is dropped", async () => {
    const conn = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({
        rawResult: `{"isError":true,"content":[{"type":"text","text":"card declined"}],"structuredContent":${deep(5_000)}}`,
      }),
    });
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "charge", input: {} }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: await conn.tools() });
    await agent.invoke("go");
    const [r] = results(agent.messages);
    expect(r?.status).toBe("error");
    expect(textOf(r!)).toMatch(/^card declined\n\[/);
  });

  test("200 images of 100 KB in one result: what fits in 4 MiB is kept, the rest dropped with one note", async () => {
    const conn = await hostile({
      list: () => ({ result: { tools: [toolDef("shoot")] } }),
      call: () => ({
        result: { content: [{ type: "text", text: "200 shots" }, ...Array.from({ length: 200 }, image)] },
      }),
    });
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "shoot", input: {} }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: await conn.tools() });
    await agent.invoke("go");
    const [r] = results(agent.messages);
    expect(r?.status).toBe("success");
    const kept = r!.content.filter((p) => p.type === "image").length;
    expect(kept).toBe(40);
    expect(mediaBytes(agent.messages)).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(r?.content[0]).toEqual({ type: "text", text: "200 shots" });
    const notes = r!.content.filter((p) => p.type === "text" && p.text.startsWith("["));
    expect(notes).toHaveLength(1);
    expect(textOf(r!)).toMatch(/\[160 images or documents .*dropped/);
  });

  test("many results of images: each model request carries at most 16 MiB of media, the newest kept", async () => {
    const conn = await hostile({
      list: () => ({ result: { tools: [toolDef("shoot")] } }),
      call: () => ({ result: { content: Array.from({ length: 35 }, image) } }),
    });
    const sent: number[] = [];
    const newestKept: boolean[] = [];
    let calls = 0;
    const model = new ScriptedModel({
      script: ({ messages }) => {
        sent.push(mediaBytes(messages));
        const last = results(messages).at(-1);
        if (last) newestKept.push(last.content.filter((p) => p.type === "image").length === 35);
        return ++calls <= 8 ? { toolCalls: [{ name: "shoot", input: {} }] } : { text: "ok" };
      },
    });
    const agent = new Agent({ model, tools: await conn.tools() });
    await agent.invoke("go");
    // 8 results of 3.5 MB are 28 MB in the transcript; no request carries more than 16 MiB.
    expect(mediaBytes(agent.messages)).toBeGreaterThan(20_000_000);
    expect(Math.max(...sent)).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(newestKept.every(Boolean)).toBe(true);
  });
});
