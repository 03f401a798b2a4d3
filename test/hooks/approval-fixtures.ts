/** The approval hook tests' fixtures: the shared bank's tools, a model that calls them once, answers. */
import {
  Agent,
  ScriptedModel,
  type AgentTool,
  type HookProvider,
  type InterruptResponse,
  type ScriptedTurn,
} from "../../src/index.js";
import { balanceTool, newBank, transferTool, type Bank } from "../fixtures/bank.js";
import { capturingLogger } from "../fixtures/logger.js";

/** The shared bank with its two tools at hand: a gated `transfer` and a read-only `balance`. */
export function bank(): Bank & { tools: AgentTool[] } {
  const b = newBank();
  return Object.assign(b, { tools: [transferTool(b), balanceTool(b)] });
}

/** A model that calls the given tools once, then answers with the results it read. */
export function callsThenAnswers(calls: { name: string; input: unknown; id?: string }[]): ScriptedModel {
  let n = 0;
  return new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }): ScriptedTurn => {
      if (lastToolResults.length === 0 && n++ === 0) return { toolCalls: calls };
      return { text: `results: ${JSON.stringify(lastToolResults.map((r) => r.content))}` };
    },
  });
}

export function newAgent(b: { tools: AgentTool[] }, hooks: HookProvider[], model: ScriptedModel): Agent {
  return new Agent({ name: "bank", model, tools: b.tools, hooks });
}

export function answer(id: string, response: unknown): InterruptResponse {
  return { interruptResponse: { interruptId: id, response: response as never } };
}

export const silentLogger = capturingLogger;
