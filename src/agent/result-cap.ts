/**
 * The size cap on a tool result: what the model is sent of one result is bounded, whatever the
 * tool (function, MCP, client, agent) returned, so one huge result cannot flood the transcript,
 * the memory of the run and every later model request.
 *
 * @module
 */
import { defaultLogger, type Logger } from "../logger.js";
import type { ToolResultBlock, ToolResultContent } from "./messages.js";

/** Default of {@link AgentTool.maxResultChars}: characters of text (and JSON) one result may hold. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;

/**
 * Cuts a result's text and JSON parts to `maxChars` characters in all (JSON parts that do not fit
 * become cut text), drops a `structuredContent` larger than the cap, and says so in a last text
 * part and a logged warning. Images and documents pass unchanged.
 * @param block - The result.
 * @param maxChars - The cap. Default {@link DEFAULT_MAX_TOOL_RESULT_CHARS}.
 * @param logger - Where a truncation is reported. Default `console`.
 * @returns The block itself when it fits, else a capped copy.
 */
export function capToolResult(
  block: ToolResultBlock,
  maxChars: number = DEFAULT_MAX_TOOL_RESULT_CHARS,
  logger: Logger = defaultLogger,
): ToolResultBlock {
  let budget = maxChars;
  let cut = 0;
  let content: ToolResultContent[] | undefined;
  for (let i = 0; i < block.content.length; i++) {
    const part = block.content[i]!;
    const text = part.type === "text" ? part.text : part.type === "json" ? JSON.stringify(part.json) : undefined;
    if (text === undefined || text.length <= budget) {
      if (text !== undefined) budget -= text.length;
      content?.push(part);
      continue;
    }
    content ??= block.content.slice(0, i);
    const kept = cutAt(text, budget);
    if (kept.length > 0) content.push({ type: "text", text: kept });
    cut += text.length - kept.length;
    budget -= kept.length;
  }
  let structuredContent = block.structuredContent;
  if (structuredContent !== undefined) {
    const size = JSON.stringify(structuredContent).length;
    if (size > maxChars) {
      structuredContent = undefined;
      cut += size;
    }
  }
  if (cut === 0) return block;
  const out: ToolResultBlock = { ...block, content: content ?? [...block.content] };
  if (structuredContent === undefined) delete out.structuredContent;
  out.content.push({ type: "text", text: `[result cut to ${maxChars} characters: ${cut} more not shown]` });
  logger.warn("A tool result was over the size cap and was cut.", { toolUseId: block.toolUseId, maxChars, cutChars: cut });
  return out;
}

// Never splits a surrogate pair: half of one is not valid text for a model API.
function cutAt(text: string, n: number): string {
  if (n <= 0) return "";
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
