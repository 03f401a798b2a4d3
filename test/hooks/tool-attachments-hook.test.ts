import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type ToolResultBlock } from "../../src/index.js";
import { ToolAttachmentsHook, unpackAttachments } from "../../src/hooks/tool-attachments-hook.js";

const PNG = "iVBORw0KGgo="; // valid base64
const base = (content: ToolResultBlock["content"], extra: Partial<ToolResultBlock> = {}): ToolResultBlock => ({
  type: "toolResult",
  toolUseId: "t1",
  status: "success",
  content,
  ...extra,
});

describe("unpackAttachments", () => {
  test("JSON part: attachments become image/document blocks and the field is removed", () => {
    const r = unpackAttachments(
      base([
        {
          type: "json",
          json: {
            ok: true,
            attachments: [
              { name: "shot.png", mimeType: "image/png", data: PNG },
              { mimeType: "application/pdf", url: "https://example.com/a.pdf" },
            ],
          },
        },
      ]),
    );
    expect(r.content).toEqual([
      { type: "json", json: { ok: true } },
      { type: "image", mimeType: "image/png", name: "shot.png", data: PNG },
      { type: "document", mimeType: "application/pdf", url: "https://example.com/a.pdf" },
    ]);
  });

  test("text part that parses as a JSON object is unpacked too; structuredContent loses the field", () => {
    const payload = { rows: 3, attachments: [{ mimeType: "text/csv; charset=utf-8", data: btoa("a,b\n1,2") }] };
    const r = unpackAttachments(
      base([{ type: "text", text: JSON.stringify(payload) }], { structuredContent: payload }),
    );
    expect(r.content).toEqual([
      { type: "text", text: '{"rows":3}' },
      { type: "document", mimeType: "text/csv", data: btoa("a,b\n1,2") },
    ]);
    expect(r.structuredContent).toEqual({ rows: 3 });
  });

  test("attachments only in structuredContent are unpacked from there", () => {
    const r = unpackAttachments(
      base([{ type: "text", text: "done" }], {
        structuredContent: { attachments: [{ mimeType: "image/webp", data: PNG }] },
      }),
    );
    expect(r.content).toEqual([
      { type: "text", text: "done" },
      { type: "image", mimeType: "image/webp", data: PNG },
    ]);
    expect(r.structuredContent).toEqual({});
  });

  test("bad attachments are dropped with a note; good ones and the rest stay", () => {
    const r = unpackAttachments(
      base([
        { type: "text", text: "header" },
        {
          type: "json",
          json: {
            id: 7,
            attachments: [
              { name: "bad.png", mimeType: "image/png", data: "not base64!!" },
              { name: "x.zip", mimeType: "application/zip", data: PNG },
              { mimeType: "image/gif", data: PNG, url: "https://e.com/x.gif" },
              { mimeType: "image/gif" },
              { mimeType: "image/png", url: "javascript:alert(1)" },
              { mimeType: "image/png", url: "not a url" },
              { mimeType: "image/png", data: "QUJD=" }, // bad padding: fails the regex
              { mimeType: "image/jpeg", data: `data:image/jpeg;base64,${PNG}` },
            ],
          },
        },
      ]),
    );
    expect(r.content.slice(0, 3)).toEqual([
      { type: "text", text: "header" },
      { type: "json", json: { id: 7 } },
      { type: "image", mimeType: "image/jpeg", data: PNG },
    ]);
    const note = (r.content[3] as { text: string }).text.split("\n");
    expect(note).toEqual([
      'Attachment 1 ("bad.png") was dropped: its data is not valid base64.',
      'Attachment 2 ("x.zip") was dropped: unsupported MIME type "application/zip".',
      "Attachment 3 was dropped: it needs exactly one of data (base64) or url.",
      "Attachment 4 was dropped: it needs exactly one of data (base64) or url.",
      "Attachment 5 was dropped: its url scheme javascript: is not allowed (https:, data:, blob:).",
      "Attachment 6 was dropped: its url is not a valid URL.",
      "Attachment 7 was dropped: its data is not valid base64.",
    ]);
    expect(r.content).toHaveLength(4);
  });

  test("a result without the field is the same object; so is a domain `attachments` list of file names", () => {
    const plain = base([
      { type: "json", json: { a: 1 } },
      { type: "text", text: "{not json" },
    ]);
    expect(unpackAttachments(plain)).toBe(plain);
    const email = base([{ type: "json", json: { subject: "Hi", attachments: ["invoice.pdf"] } }]);
    expect(unpackAttachments(email)).toBe(email);
    const notArray = base([{ type: "json", json: { attachments: { mimeType: "image/png" } } }]);
    expect(unpackAttachments(notArray)).toBe(notArray);
  });

  test("a non-object item in an attachment list is dropped with a note", () => {
    const r = unpackAttachments(
      base([{ type: "json", json: { attachments: [42, { mimeType: "image/png", data: PNG }] } }]),
    );
    expect(r.content).toEqual([
      { type: "json", json: {} },
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "text", text: "Attachment 1 was dropped: it is not an object with a string mimeType." },
    ]);
  });
});

describe("ToolAttachmentsHook with the Agent", () => {
  test("the model reads the media blocks in the tool result", async () => {
    const shot = tool({
      name: "screenshot",
      description: "s",
      inputSchema: z.object({}),
      callback: () => ({ ok: true, attachments: [{ name: "p.png", mimeType: "image/png", data: PNG }] }),
    });
    let seen: ToolResultBlock[] = [];
    const model = new ScriptedModel({
      script: [
        { toolCalls: [{ name: "screenshot" }] },
        ({ lastToolResults }) => ((seen = lastToolResults), { text: "ok" }),
      ],
    });
    const agent = new Agent({ model, tools: [shot], hooks: [new ToolAttachmentsHook()] });
    await agent.invoke("go");
    expect(seen[0]!.content).toEqual([
      { type: "json", json: { ok: true } },
      { type: "image", mimeType: "image/png", name: "p.png", data: PNG },
    ]);
  });
});
