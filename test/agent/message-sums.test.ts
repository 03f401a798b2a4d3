/**
 * MessageSums keeps running sums of a per-message measure across model calls; it must always equal
 * the measure summed afresh, whatever happened to the transcript in between (appended, cut, a message
 * replaced, its content array replaced or grown), and measure only what changed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { messageMediaBytes, withinMediaBudget } from "../../src/agent/media-budget.js";
import { MessageSums } from "../../src/agent/message-sums.js";
import type { Message } from "../../src/agent/messages.js";
import { messageChars, transcriptChars } from "../../src/agent/transcript-size.js";

const text = (t: string): Message => ({ role: "user", content: [{ type: "text", text: t }] });
const image = (bytes: number): Message => ({
  role: "user",
  content: [{ type: "image", mimeType: "image/png", data: "A".repeat(Math.ceil((bytes * 4) / 3)) }],
});

describe("MessageSums", () => {
  test("measures only messages appended since the previous call", () => {
    let calls = 0;
    const sums = new MessageSums((m) => {
      calls++;
      return messageChars(m);
    });
    const messages = [text("a"), text("bb")];
    expect(sums.total(messages)).toBe(messageChars(messages[0] as Message) + messageChars(messages[1] as Message));
    expect(calls).toBe(2);
    messages.push(text("ccc"));
    sums.total(messages.slice());
    expect(calls).toBe(3);
  });

  test("equals a fresh sum after any edit of the transcript (property)", () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), t: fc.string() }),
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), t: fc.string() }),
      fc.record({ kind: fc.constant("content" as const), at: fc.nat(), t: fc.string() }),
      fc.record({ kind: fc.constant("grow" as const), at: fc.nat(), t: fc.string() }),
    );
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 30 }), (edits) => {
        const sums = new MessageSums(messageChars);
        const messages: Message[] = [];
        for (const e of edits) {
          const i = messages.length === 0 ? 0 : ("at" in e ? e.at : 0) % messages.length;
          if (e.kind === "push") messages.push(text(e.t));
          else if (messages.length === 0) continue;
          else if (e.kind === "cut") messages.length = i;
          else if (e.kind === "replace") messages[i] = text(e.t);
          else if (e.kind === "content") (messages[i] as Message).content = [{ type: "text", text: e.t }];
          else (messages[i] as Message).content.push({ type: "text", text: e.t });
          expect(transcriptChars(messages, sums)).toBe(JSON.stringify(messages).length);
        }
      }),
    );
  });

  test("the media budget gives the same request with and without running sums", () => {
    const sums = new MessageSums(messageMediaBytes);
    const messages = [image(600), text("x"), image(500)];
    expect(withinMediaBudget(messages, 2000, sums)).toBe(messages);
    messages.push(image(1000));
    expect(withinMediaBudget(messages, 2000, sums)).toEqual(withinMediaBudget(messages, 2000));
    expect(withinMediaBudget(messages, 2000, sums)).not.toBe(messages);
    messages.splice(0, 1);
    expect(withinMediaBudget(messages, 2000, sums)).toBe(messages);
  });
});
