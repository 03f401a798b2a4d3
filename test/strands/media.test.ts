// Images and documents in tool results between the real SDK's blocks and ours (src/strands/media.ts): a
// Strands result read by our hooks and the ledger, and written back (a rewrite, a ledger replay), is the
// same result; ours the SDK cannot hold stays readable as text.
import { beforeAll, expect, it } from "vitest";
import { ourResult, strandsResult } from "../../src/strands/convert.js";
import { type Strands, loadStrands } from "./strands-sdk.js";

type Sdk = Strands & Record<string, new (data: unknown) => object>;
let strands: Sdk;
beforeAll(async () => {
  strands = (await loadStrands()) as Sdk;
}, 180_000);

// A 1×1 PNG (valid chunks and CRCs).
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

it("a Strands image (bytes, URL) and document are ours as media and come back as the same Strands blocks", () => {
  const csv = btoa("a,b\n1,2");
  const theirs = new strands.ToolResultBlock({
    toolUseId: "call_1",
    status: "success",
    content: [
      new strands.TextBlock("two files"),
      new strands.ImageBlock({ format: "png", source: { bytes: bytes(PNG) } }),
      new strands.ImageBlock({ format: "jpeg", source: { url: "https://example.com/a.jpg" } }),
      new strands.DocumentBlock({ name: "rows", format: "csv", source: { bytes: bytes(csv) } }),
    ],
  });
  const ours = ourResult(theirs);
  expect(ours.content).toEqual([
    { type: "text", text: "two files" },
    { type: "image", mimeType: "image/png", data: PNG },
    { type: "image", mimeType: "image/jpeg", url: "https://example.com/a.jpg" },
    { type: "document", mimeType: "text/csv", name: "rows", data: csv },
  ]);
  const back = strandsResult(strands, ours);
  expect(back.content.map((p) => p.constructor.name)).toEqual([
    "TextBlock",
    "ImageBlock",
    "ImageBlock",
    "DocumentBlock",
  ]);
  expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(theirs)));
});

it("media Strands cannot hold (a document by URL, another image type) reach its model as their JSON text", () => {
  const back = strandsResult(strands, {
    type: "toolResult",
    toolUseId: "call_1",
    status: "success",
    content: [
      { type: "document", mimeType: "application/pdf", url: "https://example.com/a.pdf" },
      { type: "image", mimeType: "image/bmp", data: PNG },
    ],
  });
  expect(back.content.map((p) => p.type)).toEqual(["textBlock", "textBlock"]);
  expect(back.content[0]?.text).toContain("https://example.com/a.pdf");
});
