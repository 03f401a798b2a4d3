// The loop on OpenAI Agents JS (agents-core): a Model answering each turn whole (the non-streamed
// path, the lighter of its two), one zod tool, tracing off.
import { Agent, Runner, Usage, setTracingDisabled, tool } from "@openai/agents-core";
import { z } from "zod";
import { turn, usage } from "./script.mjs";

setTracingDisabled(true);

class ScriptedModel {
  #n;
  #i = 0;
  constructor(n) {
    this.#n = n;
  }
  async getResponse() {
    const t = turn(this.#i++, this.#n);
    const output = t.call
      ? [{ type: "function_call", callId: t.call.id, name: "echo", arguments: t.call.json, status: "completed" }]
      : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t.text }] }];
    return { usage: new Usage({ requests: 1, ...usage }), output };
  }
  // biome-ignore lint/correctness/useYield: the bench runs the non-streamed path only.
  async *getStreamedResponse() {
    throw new Error("not used");
  }
}

export async function make() {
  const echo = tool({
    name: "echo",
    description: "Echoes its input.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
  return async function run(n) {
    const agent = new Agent({ name: "bench", instructions: "Echo.", model: new ScriptedModel(n), tools: [echo] });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Echo ping, many times.", {
      maxTurns: n + 5,
    });
    if (result.finalOutput !== "done" || result.history.length !== 2 * n + 2) {
      throw new Error(`openai: unexpected end ${result.finalOutput} after ${result.history.length} items`);
    }
  };
}
