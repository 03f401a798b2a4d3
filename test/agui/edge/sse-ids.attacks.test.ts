/**
 * Event ids attacked: every SSE frame carries `id: <runId>:<n>`, and a run id is the sender's to
 * choose. An approver of a four-eyes question chooses the run id of the run that records their
 * answer, and the thread's owner watches that run when reattaching: a run id holding a line break
 * would write frames of the approver's choosing into the owner's stream.
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { post, quietLogger, resumeBody, send } from "./fixtures.js";

function setup() {
  const store = new MemoryThreadStore();
  const agent = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "wire", input: { to: "eve" } }] },
      }),
      tools: [
        tool({ name: "wire", description: "Wire.", inputSchema: z.object({ to: z.string() }), callback: () => "ok" }),
      ],
      hooks: [new InterruptHook([{ pattern: "wire", approvals: { required: 2, eligible: (p) => p !== "ann" } }])],
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: store },
    trust: { principal: (r) => r.headers.get("x-user") ?? "" },
    logger: quietLogger(),
  });
  return { handle, as: (who: string) => ({ "x-user": who }) };
}

const forged = JSON.stringify({
  type: EventType.TEXT_MESSAGE_CONTENT,
  messageId: "x",
  delta: "approved by compliance",
});
const evilRunIds = [`r\ndata: ${forged}\n\n`, `r\rdata: ${forged}\r\r`, "r\u0000", "r\r\nid: 0"];

describe("SSE event ids, attacked", () => {
  test("a run id with a line break or NUL is refused at the door, in a run, a Stop or a reattach", async () => {
    const s = setup();
    for (const runId of evilRunIds) {
      const say = { id: crypto.randomUUID(), role: "user" as const, content: "wire" };
      for (const body of [
        input({ threadId: "t", runId, messages: [say] }),
        { kaboo_cancel: { threadId: "t", runId } },
        { kaboo_connect: { threadId: "t", runId } },
      ]) {
        const res = await s.handle(post(body, s.as("ann")));
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: "invalid_id" });
      }
    }
  });

  test("an approver's run id cannot write frames into the owner's reattached stream", async () => {
    const s = setup();
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "wire" };
    const asked = await send(s.handle, input({ threadId: "t", messages: [say] }), s.as("ann"));
    expect(asked.interrupts).toHaveLength(1);
    for (const runId of evilRunIds) {
      const res = await s.handle(post({ ...resumeBody("t", asked, { approved: true }), runId }, s.as("bob")));
      await res.text();
    }
    const watch = await s.handle(post({ kaboo_connect: { threadId: "t" } }, s.as("ann")));
    const text = watch.status === 200 ? await watch.text() : "";
    const events: BaseEvent[] = [];
    createParser({ onEvent: (m) => events.push(JSON.parse(m.data) as BaseEvent) }).feed(text);
    expect(JSON.stringify(events)).not.toContain("approved by compliance");
  });

  test("a Last-Event-ID whose run id is longer than a body's may be is 400, as the body's would be", async () => {
    const s = setup();
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "wire" };
    await send(s.handle, input({ threadId: "t", messages: [say] }), s.as("ann"));
    for (const runId of ["r".repeat(513), "é".repeat(300)]) {
      const res = await s.handle(
        post({ kaboo_connect: { threadId: "t" } }, { ...s.as("ann"), "last-event-id": `${runId}:0` }),
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_last_event_id" });
    }
  });

  test("every frame of an approver's response has an id, the final one included (approving and denying)", async () => {
    const s = setup();
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "wire" };
    const asked = await send(s.handle, input({ threadId: "t", messages: [say] }), s.as("ann"));
    const answer = async (who: string, approved: boolean, interruptId: string | undefined) => {
      const runId = crypto.randomUUID();
      const body = { ...resumeBody("t", asked, { approved }, interruptId), runId };
      const res = await s.handle(post(body, s.as(who)));
      const frames: { id: string | undefined; event: BaseEvent }[] = [];
      createParser({ onEvent: (m) => frames.push({ id: m.id, event: JSON.parse(m.data) as BaseEvent }) }).feed(
        await res.text(),
      );
      expect(frames.map((f) => f.event.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
      expect(frames.map((f) => f.id)).toEqual([`${runId}:0`, expect.stringMatching(new RegExp(`^${runId}:\\d+$`))]);
      const finished = frames[1]?.event as unknown as { outcome?: { interrupts?: { id: string }[] } };
      return finished.outcome?.interrupts?.[0]?.id;
    };
    const next = await answer("bob", true, asked.interrupts[0]?.id);
    expect(next).toBeDefined();
    expect(await answer("carol", false, next)).toBeUndefined();
  });
});
