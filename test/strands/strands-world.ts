// The Strands world of these tests (the SDK's classes as the tests use them, a scripted model, a bank with
// a `pay` tool), without Node built-ins: the browser test (strands.browser.test.ts) runs it in Chromium.
import { type KabooPluginOptions, type StrandsSdk, kabooPlugin } from "../../src/strands/index.js";

/** A content block of a Strands message, as the scripted model reads it. */
interface Block {
  type: string;
  toolUseId?: string;
}

/** The SDK's classes these tests use, besides the ones the adapter types ({@link StrandsSdk}). */
export interface Strands extends StrandsSdk {
  Agent: new (config: Record<string, unknown>) => StrandsAgentUnderTest;
  Model: abstract new () => object;
  FunctionTool: new (config: {
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    callback: (input: unknown, context: unknown) => unknown;
  }) => { name: string };
  NullConversationManager: new () => object;
  SessionManager: new (config: { sessionId: string; storage: { snapshot: object } }) => object;
  FileStorage: new (baseDir: string) => object;
}

/** What the tests read of a Strands agent and its results. */
export interface StrandsAgentUnderTest {
  invoke(args: unknown, options?: { invocationState?: Record<string, unknown> }): Promise<StrandsRunResult>;
  messages: { role: string; content: Block[] }[];
  takeSnapshot(options: { preset: "session" }): unknown;
  loadSnapshot(snapshot: unknown): void;
}

/** A Strands `AgentResult`, as the tests read it. */
export interface StrandsRunResult {
  stopReason: string;
  interrupts?: { id: string; name: string; reason?: unknown; toJSON(): unknown }[];
  lastMessage: { content: { type: string; text?: string }[] };
}

/** One scripted call: the tool the model calls, with these arguments, under this id. */
export interface ScriptedCall {
  name: string;
  toolUseId: string;
  input: Record<string, unknown>;
}

/**
 * A Strands model (a subclass of the SDK's own `Model`, its streaming events, no network) that makes the
 * first call of `script` the conversation has no result for, one a turn, then answers with the text of the
 * last call's result.
 * It reads the transcript only, so a second agent restored from a snapshot gets the same script.
 * Each call's messages (what the model read) are pushed to `seen` when given.
 */
export function scriptedModel(
  strands: Strands,
  script: ScriptedCall | readonly ScriptedCall[],
  seen?: unknown[][],
): object {
  const calls = Array.isArray(script) ? script : [script];
  const Base = strands.Model as unknown as new () => object;
  class Scripted extends Base {
    #config: Record<string, unknown> = { modelId: "scripted" };
    updateConfig(config: Record<string, unknown>) {
      this.#config = { ...this.#config, ...config };
    }
    getConfig() {
      return this.#config;
    }
    async *stream(messages: { content: (Block & { content?: { text?: string }[] })[] }[]) {
      seen?.push([...messages]);
      const blocks = messages.flatMap((m) => m.content);
      const resultOf = (id: string) => blocks.find((b) => b.type === "toolResultBlock" && b.toolUseId === id);
      const call = calls.find((c) => !resultOf(c.toolUseId));
      const result = resultOf(calls.at(-1)?.toolUseId ?? "");
      yield { type: "modelMessageStartEvent", role: "assistant" };
      if (call) {
        yield {
          type: "modelContentBlockStartEvent",
          start: { type: "toolUseStart", name: call.name, toolUseId: call.toolUseId },
        };
        yield {
          type: "modelContentBlockDeltaEvent",
          delta: { type: "toolUseInputDelta", input: JSON.stringify(call.input) },
        };
        yield { type: "modelContentBlockStopEvent" };
        yield { type: "modelMessageStopEvent", stopReason: "toolUse" };
      } else {
        const text = (result?.content ?? []).map((c) => c.text ?? "").join("");
        yield { type: "modelContentBlockStartEvent" };
        yield { type: "modelContentBlockDeltaEvent", delta: { type: "textDelta", text: `done: ${text}` } };
        yield { type: "modelContentBlockStopEvent" };
        yield { type: "modelMessageStopEvent", stopReason: "endTurn" };
      }
    }
  }
  return new Scripted();
}

/**
 * A bank whose `pay` tool counts what it really ran (and returns `result`, default `paid <to>`), and Strands
 * agents on it driven by `script`, with `kabooPlugin(strands, options)`; `seen` holds each model call's messages.
 */
export function bank(strands: Strands, script: ScriptedCall | readonly ScriptedCall[], result?: string) {
  const paid: unknown[] = [];
  const seen: unknown[][] = [];
  const pay = new strands.FunctionTool({
    name: "pay",
    description: "Pays someone.",
    inputSchema: { type: "object", properties: { to: { type: "string" }, cents: { type: "number" } } },
    callback: (input) => {
      paid.push(input);
      return result ?? `paid ${(input as { to: string }).to}`;
    },
  });
  const agent = (options: KabooPluginOptions, sessionManager?: object) =>
    new strands.Agent({
      model: scriptedModel(strands, script, seen),
      tools: [pay],
      printer: false,
      plugins: [kabooPlugin(strands, options)],
      ...(sessionManager ? { sessionManager } : {}),
    });
  return { paid, seen, agent };
}
