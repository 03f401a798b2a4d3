/**
 * Tool calls and results between Strands' shapes and ours: the one place that knows both.
 *
 * @module
 */
import type {
  ContentBlock,
  JsonValue,
  Message,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from "../agent/messages/messages.js";
import type {
  StrandsJson,
  StrandsMessage,
  StrandsResultPart,
  StrandsSdk,
  StrandsToolResult,
  StrandsToolUse,
} from "./sdk.js";
import { ourMedia, strandsMedia } from "./media.js";

/**
 * A Strands tool call as ours.
 * @param toolUse - Strands' `ToolUseData`.
 * @returns Our `ToolUseBlock` (a new object).
 */
export function ourToolUse(toolUse: StrandsToolUse): ToolUseBlock {
  return { type: "toolUse", toolUseId: toolUse.toolUseId, name: toolUse.name, input: toolUse.input };
}

function ourPart(part: StrandsResultPart): ToolResultContent {
  if (part.type === "textBlock" && typeof part.text === "string") return { type: "text", text: part.text };
  if (part.type === "jsonBlock") return { type: "json", json: (part.json ?? null) as JsonValue };
  const media = ourMedia(part);
  if (media) return media;
  // Other blocks are kept as their JSON (the ledger records what the model read).
  return { type: "json", json: JSON.parse(JSON.stringify(part)) as JsonValue };
}

/**
 * A Strands tool result as ours.
 * @param result - Strands' `ToolResultBlock`.
 * @returns Our `ToolResultBlock`.
 */
export function ourResult(result: StrandsToolResult): ToolResultBlock {
  return {
    type: "toolResult",
    toolUseId: result.toolUseId,
    status: result.status,
    content: result.content.map(ourPart),
  };
}

/**
 * Our tool result as a Strands `ToolResultBlock`, built with the application's SDK classes.
 * @param sdk - The SDK's module.
 * @param result - Our result.
 * @returns Strands' block.
 */
export function strandsResult(sdk: StrandsSdk, result: ToolResultBlock): StrandsToolResult {
  const content = result.content.map((part) => {
    if (part.type === "text") return new sdk.TextBlock(part.text);
    if (part.type === "json") return new sdk.JsonBlock({ json: part.json as StrandsJson });
    return strandsMedia(sdk, part) ?? new sdk.TextBlock(JSON.stringify(part));
  });
  return new sdk.ToolResultBlock({ toolUseId: result.toolUseId, status: result.status, content });
}

/** Strands' `ToolUseBlock`, as the adapter writes a rename into it. */
export interface StrandsToolUseBlock {
  type: "toolUseBlock";
  name: string;
  toolUseId: string;
  input: unknown;
}

/**
 * A Strands message as ours (text and tool calls; other blocks are left out), with the Strands tool-use
 * block behind each of ours, so a hook's rename can be written back.
 * @param message - Strands' `Message`.
 * @returns Our message and the blocks map.
 */
export function ourMessage(message: StrandsMessage): {
  message: Message;
  blocks: Map<ContentBlock, StrandsToolUseBlock>;
} {
  const blocks = new Map<ContentBlock, StrandsToolUseBlock>();
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "toolUseBlock") {
      const strands = block as unknown as StrandsToolUseBlock;
      const ours: ContentBlock = {
        type: "toolUse",
        toolUseId: strands.toolUseId,
        name: strands.name,
        input: strands.input,
      };
      blocks.set(ours, strands);
      content.push(ours);
    } else if (block.type === "textBlock") {
      const text = (block as { text?: unknown }).text;
      if (typeof text === "string") content.push({ type: "text", text });
    }
  }
  return { message: { role: message.role, content }, blocks };
}
