/**
 * Browser tools: the AG-UI `tools` of a run, which the front end runs.
 *
 * @module
 */
import type { Tool as AguiTool } from "@ag-ui/core";
import type { Agent } from "../agent/agent.js";
import type { JsonObject, JsonValue } from "../agent/messages/messages.js";
import { toToolOutput, type AgentTool, type ToolContext } from "../agent/tools/tools.js";
import { CLIENT_TOOL_INTERRUPT } from "./interrupts.js";

/** Runs a browser tool in the page. Its return value is the tool's result. */
export type ClientToolHandler = (args: JsonObject, context: ToolContext) => unknown;

/**
 * A browser tool for the runner. With a handler, the page runs it at once. Without one, the
 * call pauses the run (interrupt `client_tool`): the adapter ends the run with the call in
 * `pendingToolCallIds`, and the host sends the result back as a tool message on the next run
 * (or, when the same run also waits on approvals, as this interrupt's resume payload).
 */
export function clientTool(spec: AguiTool, handler?: ClientToolHandler): AgentTool {
  const parameters =
    spec.parameters && typeof spec.parameters === "object"
      ? (spec.parameters as JsonObject)
      : { type: "object", properties: {} };
  return {
    name: spec.name,
    kind: "client",
    spec: { name: spec.name, description: spec.description, inputSchema: parameters },
    validate: (input) =>
      typeof input === "object" && input !== null && !Array.isArray(input)
        ? { ok: true, value: input }
        : { ok: false, error: "The arguments must be a JSON object." },
    async call(input, context) {
      if (handler) return toToolOutput(await handler(input as JsonObject, context));
      const answer = context.interrupt({
        name: CLIENT_TOOL_INTERRUPT,
        reason: { tool: spec.name, input: input as JsonValue },
      });
      return toToolOutput(answer);
    },
  };
}

/** Replaces the agent's browser tools with this run's (server tools of the same name win). */
export function installClientTools(
  agent: Agent,
  tools: readonly AguiTool[],
  handlers: Readonly<Record<string, ClientToolHandler>>,
): void {
  for (const name of agent.toolNames()) if (agent.tool(name)?.kind === "client") agent.removeTool(name);
  for (const spec of tools) {
    if (agent.tool(spec.name)) continue;
    agent.addTool(clientTool(spec, Object.hasOwn(handlers, spec.name) ? handlers[spec.name] : undefined));
  }
}
