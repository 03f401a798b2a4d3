/**
 * Messages and content blocks: the runner's transcript format.
 *
 * Plain JSON objects (no classes) so a transcript survives `JSON.stringify`,
 * `structuredClone`, IndexedDB and a trip over the wire unchanged.
 *
 * @module
 */

/** Any value `JSON.stringify` round-trips. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Plain text. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** Media given inline (base64 `data`) or by reference (`url`). */
export interface MediaSource {
  /** Base64 of the bytes, without a `data:` prefix. */
  data?: string;
  /** An https:, data: or blob: URL. */
  url?: string;
}

/** An image, from the user or inside a tool result. */
export interface ImageBlock extends MediaSource {
  type: "image";
  /** e.g. `image/png`. */
  mimeType: string;
  name?: string;
}

/** A document (PDF, text, …), from the user or inside a tool result. */
export interface DocumentBlock extends MediaSource {
  type: "document";
  /** e.g. `application/pdf`. */
  mimeType: string;
  name?: string;
}

/** The model's request to call a tool. */
export interface ToolUseBlock {
  type: "toolUse";
  toolUseId: string;
  name: string;
  /**
   * The arguments. A string here means the model's arguments did not parse as
   * JSON; the runner answers such a call with an error result the model can read.
   */
  input: unknown;
}

/** A JSON part of a tool result. */
export interface JsonPart {
  type: "json";
  json: JsonValue;
}

/** One part of a tool result. */
export type ToolResultContent = TextBlock | JsonPart | ImageBlock | DocumentBlock;

/** The outcome of one tool call, answering the {@link ToolUseBlock} with the same id. */
export interface ToolResultBlock {
  type: "toolResult";
  toolUseId: string;
  status: "success" | "error";
  content: ToolResultContent[];
  /** An MCP tool's `structuredContent`, kept beside the content. */
  structuredContent?: JsonValue;
}

/** The model's reasoning ("thinking"), kept with its signature so it can be sent back. */
export interface ReasoningBlock {
  type: "reasoning";
  text: string;
  signature?: string;
  /** Provider-encrypted reasoning the model may need back verbatim. */
  redacted?: string;
}

/** Any block of a message. */
export type ContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock;

/** Who wrote a message. */
export type Role = "user" | "assistant";

/** One message of the transcript. */
export interface Message {
  role: Role;
  content: ContentBlock[];
  /** Optional stable id (the AG-UI adapter keeps the front end's message ids here). */
  id?: string;
}

/**
 * Builds a text message.
 * @param role - Who speaks.
 * @param text - What they say.
 * @returns `{ role, content: [{ type: "text", text }] }`.
 */
export function textMessage(role: Role, text: string): Message {
  return { role, content: [{ type: "text", text }] };
}

/**
 * Concatenates the text blocks of a message (reasoning and tool blocks excluded).
 * @param message - The message to read; `undefined` gives `""`.
 * @returns The text, blocks joined with no separator.
 */
export function messageText(message: Message | undefined): string {
  if (!message) return "";
  let out = "";
  for (const block of message.content) if (block.type === "text") out += block.text;
  return out;
}

/**
 * Renders a tool result's content as text (JSON parts stringified, media as a short note).
 * @param content - The result's parts.
 * @returns Text for logs, event payloads and size estimates.
 */
export function toolResultText(content: readonly ToolResultContent[]): string {
  const parts: string[] = [];
  for (const part of content) {
    if (part.type === "text") parts.push(part.text);
    else if (part.type === "json") parts.push(JSON.stringify(part.json));
    else parts.push(`[${part.type} ${part.name ?? part.mimeType}]`);
  }
  return parts.join("\n");
}
