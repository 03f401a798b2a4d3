/**
 * Small helpers both providers use for images and documents.
 *
 * @module
 */
import type { DocumentBlock, ImageBlock, MediaSource } from "../agent/messages/messages.js";

/**
 * A `data:` URL for inline media, or the block's own URL.
 * @param block - An image or document with `data` (base64) or `url`.
 * @returns The URL, or `undefined` when the block has neither.
 */
export function mediaUrl(block: MediaSource & { mimeType: string }): string | undefined {
  if (block.data !== undefined) return `data:${block.mimeType};base64,${block.data}`;
  return block.url;
}

/** Whether a document's bytes are text a model can read inline. */
export function isTextDocument(mimeType: string): boolean {
  return (
    /^text\//.test(mimeType) ||
    /^application\/(json|xml|x-ndjson|yaml|x-yaml|csv)\b/.test(mimeType) ||
    /\+(json|xml)\b/.test(mimeType)
  );
}

/**
 * Decodes a base64 text document (UTF-8).
 * @param data - Base64, no `data:` prefix.
 * @returns The text, or `undefined` when `data` is not valid base64.
 */
export function decodeBase64Text(data: string): string | undefined {
  try {
    const binary = atob(data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Text standing in for media a provider cannot take, so the model still knows it was there.
 * @param block - The image or document.
 * @returns e.g. `[document report.pdf (application/pdf) omitted: not supported by this model endpoint]`.
 */
export function mediaNote(block: ImageBlock | DocumentBlock, why = "not supported by this model endpoint"): string {
  const name = block.name ? `${block.name} (${block.mimeType})` : block.mimeType;
  return `[${block.type} ${name} omitted: ${why}]`;
}

/**
 * A text document as text: its decoded content with a header naming it, or a note.
 * @param block - A document block.
 * @returns Text to send in place of the document.
 */
export function documentAsText(block: DocumentBlock): string {
  if (isTextDocument(block.mimeType) && block.data !== undefined) {
    const text = decodeBase64Text(block.data);
    if (text !== undefined) return `[document ${block.name ?? block.mimeType}]\n${text}`;
  }
  return mediaNote(block);
}
