// The loop on Strands TS: a Model subclass replaying the script, one zod tool, defaults otherwise.
import { Agent, Model, NullConversationManager, tool } from "@strands-agents/sdk";
import { z } from "zod";
import { pieces, turn, usage } from "./script.mjs";

/** A Strands model replaying the shared script (bench/peers/script.mjs); bench/strands.mjs uses it too. */
export class ScriptedModel extends Model {
  #n;
  #i = 0;
  #config = { modelId: "scripted" };
  constructor(n) {
    super();
    this.#n = n;
  }
  updateConfig(config) {
    this.#config = { ...this.#config, ...config };
  }
  getConfig() {
    return this.#config;
  }
  async *stream() {
    const t = turn(this.#i++, this.#n);
    yield { type: "modelMessageStartEvent", role: "assistant" };
    if (t.call) {
      yield {
        type: "modelContentBlockStartEvent",
        start: { type: "toolUseStart", name: "echo", toolUseId: t.call.id },
      };
      for (const input of pieces(t.call.json))
        yield { type: "modelContentBlockDeltaEvent", delta: { type: "toolUseInputDelta", input } };
    } else {
      yield { type: "modelContentBlockStartEvent" };
      for (const text of pieces(t.text))
        yield { type: "modelContentBlockDeltaEvent", delta: { type: "textDelta", text } };
    }
    yield { type: "modelContentBlockStopEvent" };
    yield { type: "modelMessageStopEvent", stopReason: t.call ? "toolUse" : "endTurn" };
    yield { type: "modelMetadataEvent", usage };
  }
}

export async function make() {
  const echo = tool({
    name: "echo",
    description: "Echoes its input.",
    inputSchema: z.object({ text: z.string() }),
    callback: ({ text }) => text,
  });
  return async function run(n) {
    // The whole transcript is kept, as in the other implementations (the default manager trims to 40).
    const agent = new Agent({
      model: new ScriptedModel(n),
      tools: [echo],
      printer: false,
      conversationManager: new NullConversationManager(),
    });
    const result = await agent.invoke("Echo ping, many times.");
    if (result.stopReason !== "endTurn" || agent.messages.length !== 2 * n + 2) {
      throw new Error(`strands: unexpected end ${result.stopReason} after ${agent.messages.length} messages`);
    }
  };
}
