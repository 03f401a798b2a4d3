/**
 * Images and documents in tool results, between Strands' media blocks and ours: an image or document a
 * hook puts in a result (`ToolAttachmentsHook`) reaches the Strands model as Strands' own `ImageBlock` /
 * `DocumentBlock`, and one a Strands tool returns reaches our hooks (and the ledger's record) as ours.
 *
 * @module
 */
import type { DocumentBlock, ImageBlock } from "../agent/messages/messages.js";
import type { StrandsDocumentFormat, StrandsImageFormat, StrandsResultPart, StrandsSdk } from "./sdk.js";

/** Strands' image formats by our MIME type. */
const IMAGE_FORMATS: Readonly<Record<string, StrandsImageFormat>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};
/** Strands' document formats by our MIME type (those `ToolAttachmentsHook` makes). */
const DOCUMENT_FORMATS: Readonly<Record<string, StrandsDocumentFormat>> = {
  "application/pdf": "pdf",
  "application/json": "json",
  "text/plain": "txt",
  "text/csv": "csv",
  "text/markdown": "md",
  "text/html": "html",
};

/** A Strands media block as the adapter reads it (`ImageBlock`, `DocumentBlock`). */
interface StrandsMediaPart extends StrandsResultPart {
  readonly format?: string;
  readonly name?: string;
  readonly source?: { readonly type?: string; readonly bytes?: Uint8Array; readonly url?: string };
}

function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Our image or document as Strands' block, built with the application's SDK classes.
 * @param sdk - The SDK's module.
 * @param part - Our media part.
 * @returns Strands' `ImageBlock` / `DocumentBlock`, or `undefined` where Strands has no such block (another
 * MIME type; a document by URL, which Strands' documents cannot hold).
 */
export function strandsMedia(sdk: StrandsSdk, part: ImageBlock | DocumentBlock): StrandsResultPart | undefined {
  if (part.type === "image") {
    const format = IMAGE_FORMATS[part.mimeType];
    if (!format) return undefined;
    if (part.data !== undefined) return new sdk.ImageBlock({ format, source: { bytes: bytesOf(part.data) } });
    if (part.url !== undefined) return new sdk.ImageBlock({ format, source: { url: part.url } });
    return undefined;
  }
  const format = DOCUMENT_FORMATS[part.mimeType];
  if (!format || part.data === undefined) return undefined;
  return new sdk.DocumentBlock({ name: part.name ?? "document", format, source: { bytes: bytesOf(part.data) } });
}

const mimeOf = (formats: Readonly<Record<string, string>>, format: string | undefined) =>
  Object.keys(formats).find((mime) => formats[mime] === format);

/**
 * A Strands image or document block (from bytes or, for an image, a URL) as ours.
 * @param part - A Strands tool result part.
 * @returns Our media part, or `undefined` for any other part (other sources, formats or blocks).
 */
export function ourMedia(part: StrandsResultPart): ImageBlock | DocumentBlock | undefined {
  const media = part as StrandsMediaPart;
  const source = media.source;
  if (part.type === "imageBlock") {
    const mimeType = mimeOf(IMAGE_FORMATS, media.format === "jpg" ? "jpeg" : media.format);
    if (!mimeType || !source) return undefined;
    if (source.bytes instanceof Uint8Array) return { type: "image", mimeType, data: base64Of(source.bytes) };
    if (typeof source.url === "string") return { type: "image", mimeType, url: source.url };
    return undefined;
  }
  if (part.type !== "documentBlock") return undefined;
  const mimeType = mimeOf(DOCUMENT_FORMATS, media.format);
  if (!mimeType || !(source?.bytes instanceof Uint8Array)) return undefined;
  const name = typeof media.name === "string" ? { name: media.name } : {};
  return { type: "document", mimeType, ...name, data: base64Of(source.bytes) };
}
