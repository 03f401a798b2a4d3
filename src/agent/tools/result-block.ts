/**
 * The runner's result block of a call: the tool's output stamped with the call's id, bounded. Loads
 * with the runner (the first run).
 *
 * @module
 */
import type { ToolResultBlock } from "../messages/messages.js";
import { capToolResult, type ToolResultLimits } from "./result-cap.js";
import type { ToolOutput } from "./tools.js";

/**
 * Stamps a tool output with the call's id, bounded (see {@link capToolResult}).
 * @param toolUseId - The call's id.
 * @param output - What the tool returned.
 * @param limits - `maxChars` of text and JSON (a number works too), `maxMediaBytes`, `maxDepth`. Default: the defaults.
 * @returns The result block.
 */
export function toResultBlock(
  toolUseId: string,
  output: ToolOutput,
  limits?: number | ToolResultLimits,
): ToolResultBlock {
  const block: ToolResultBlock = { type: "toolResult", toolUseId, status: output.status, content: output.content };
  if (output.structuredContent !== undefined) block.structuredContent = output.structuredContent;
  return capToolResult(block, limits);
}
