/**
 * MessageSums keeps running sums of a per-message measure across model calls; it must always equal
 * the measure summed afresh, whatever happened to the transcript in between (appended, cut, a message
 * replaced, its content array replaced or grown), and measure only what changed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { messageMediaBytes, withinMediaBudget } from "../../src/agent/messages/media-budget.js";
import { MessageSums } from "../../src/agent/messages/message-sums.js";
import type { Message } from "../../src/agent/messages/messages.js";
import { messageChars, transcriptChars } from "../../src/agent/messages/transcript-size.js";
import { Agent, type Model } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";

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

  test("the media budget gives the same request with and without running sums", async () => {
    const sums = new MessageSums(messageMediaBytes);
    const messages = [image(600), text("x"), image(500)];
    // Within budget the answer is synchronous: the messages themselves.
    expect(withinMediaBudget(messages, 2000, sums)).toBe(messages);
    messages.push(image(1000));
    expect(await withinMediaBudget(messages, 2000, sums)).toEqual(await withinMediaBudget(messages, 2000));
    expect(await withinMediaBudget(messages, 2000, sums)).not.toBe(messages);
    messages.splice(0, 1);
    expect(withinMediaBudget(messages, 2000, sums)).toBe(messages);
  });
});

describe("the request media budget in a run", () => {
  test("a request over the budget leaves its oldest media out of that request; the transcript keeps them", async () => {
    const sent: Message[][] = [];
    const scripted = new ScriptedModel({ script: [{ text: "ok" }] });
    const model: Model = {
      modelId: "recording",
      stream: (messages, options) => {
        sent.push(messages);
        return scripted.stream(messages, options);
      },
    };
    const old = image(1500);
    const agent = new Agent({ model, maxMediaBytes: 2000, messages: [old, text("seen")] });
    await agent.invoke(image(1000).content);
    const request = sent[0] as Message[];
    expect(request[0]?.content).toEqual([
      {
        type: "text",
        text: "[an image (1500 bytes) left out of this request: the conversation carries more than 2000 bytes of media, and newer media come first]",
      },
    ]);
    // The newest image fits and is sent; the transcript still holds the old one.
    expect(request[2]?.content).toEqual(agent.messages[2]?.content);
    expect(request[2]?.content[0]?.type).toBe("image");
    expect(agent.messages[0]).toEqual(old);
  });
});
