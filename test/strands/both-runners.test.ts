// The hooks' runner-independent behaviour, one suite run on both runners: our Agent with its ScriptedModel,
// and a real Strands Agent (SDK 1.19.0, test/strands/package.json) through kabooPlugin with a scripted Model
// subclass. Same hook instances' classes, same script (one `pay` call, then a text answer).
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type HookProvider } from "../../src/index.js";
import { EventPublisher, type StreamEvent } from "../../src/hooks/event-publisher.js";
import type { Grant } from "../../src/grants/grant.js";
import { signGrant } from "../../src/grants/signing.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { capturingLogger } from "../fixtures/logger.js";
import { MaxToolCallsGuard } from "../../src/hooks/max-calls-guard.js";
import { ToolAttachmentsHook } from "../../src/hooks/tool-attachments-hook.js";
import { type Strands, bank, loadStrands } from "./strands-sdk.js";
import { tracing } from "../otel/trace-fixtures.js";
import {
  STATE_EFFECTS_KEY,
  type StateEffectCall,
  StateEffectsHook,
  stateDeltas,
} from "../../src/hooks/state-effects.js";

let strands: Strands;
beforeAll(async () => {
  strands = await loadStrands();
}, 180_000);

const input = { to: "bob", cents: 500 };
// The refused unsigned grant is logged: kept out of the test output.
const silent = capturingLogger();

/** What a test needs of either runner's agent. */
interface Run {
  stopReason: string;
  interrupts?: { id: string; reason?: unknown }[] | undefined;
}
/** A tool result as the model read it: its parts by kind (`text`, `json`, `image`, …), text and image bytes. */
interface ResultRead {
  kinds: string[];
  text: string;
  /** The image's bytes, base64. */
  image: string | undefined;
  json: string;
}
interface World {
  paid: unknown[];
  invoke(args: unknown, invocationState?: Record<string, unknown>): Promise<Run>;
  /** The last tool result the model was given. */
  resultRead(): ResultRead | undefined;
}

/** A Strands tool result part's image bytes, base64 (Web APIs, as the browser would). */
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

const runners: { name: string; world(hooks: HookProvider[], result?: string): World }[] = [
  {
    name: "our runner",
    world(hooks, result) {
      const paid: unknown[] = [];
      let read: ResultRead | undefined;
      const pay = tool({
        name: "pay",
        description: "Pays someone.",
        inputSchema: z.object({ to: z.string(), cents: z.number() }),
        callback: (i) => {
          paid.push(i);
          return result ?? `paid ${i.to}`;
        },
      });
      const model = new ScriptedModel({
        script: [
          { toolCalls: [{ name: "pay", input }] },
          ({ lastToolResults }) => {
            const parts = lastToolResults.at(-1)?.content ?? [];
            read = {
              kinds: parts.map((p) => p.type),
              text: parts.map((p) => (p.type === "text" ? p.text : "")).join(""),
              image: parts.flatMap((p) => (p.type === "image" ? [p.data] : []))[0],
              json: JSON.stringify(lastToolResults.at(-1)),
            };
            return { text: "done" };
          },
        ],
        ids: "sequential",
      });
      const agent = new Agent({ name: "bank", model, tools: [pay], hooks });
      return {
        paid,
        invoke: (args, invocationState = {}) => agent.invoke(args as never, { invocationState }),
        resultRead: () => read,
      };
    },
  },
  {
    name: "Strands",
    world(hooks, result) {
      const b = bank(strands, { name: "pay", toolUseId: "call_1", input }, result);
      const agent = b.agent({ hooks });
      type Part = { type: string; text?: string; source?: { bytes?: Uint8Array } };
      const resultRead = () => {
        const blocks = (b.seen.at(-1) ?? []).flatMap((m) => (m as { content: { type: string }[] }).content);
        const last = blocks.filter((x) => x.type === "toolResultBlock").at(-1) as { content: Part[] } | undefined;
        if (!last) return undefined;
        const image = last.content.find((p) => p.type === "imageBlock")?.source?.bytes;
        return {
          kinds: last.content.map((p) => p.type.replace(/Block$/, "")),
          text: last.content.map((p) => (p.type === "textBlock" ? p.text : "")).join(""),
          image: image ? base64(image) : undefined,
          json: JSON.stringify(last),
        };
      };
      return {
        paid: b.paid,
        invoke: (args, invocationState = {}) => agent.invoke(args, { invocationState }),
        resultRead,
      };
    },
  },
];

// A 1×1 PNG (valid chunks and CRCs).
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const approve = (paused: Run) => [
  { interruptResponse: { interruptId: paused.interrupts?.[0]?.id, response: { approved: true } } },
];

/** The events' shape: type and data keys (values such as ids and durations differ between runs). */
const shape = (events: StreamEvent[]) => events.map((e) => `${e.type}(${Object.keys(e.data).sort().join(",")})`);

async function publishedRun(world: (hooks: HookProvider[]) => World) {
  const events: StreamEvent[] = [];
  const w = world([new EventPublisher((e) => void events.push(e), "bank"), new InterruptHook(["pay"])]);
  const state = { threadId: "t1" };
  const paused = await w.invoke("pay bob 5", state);
  const pausedEvents = events.length;
  await w.invoke(approve(paused), { threadId: "t1" });
  return { events, pausedEvents, paid: w.paid };
}

describe.each(runners)("the hooks on $name", ({ world }) => {
  it("InterruptHook: pause, approve, the call runs once", async () => {
    const w = world([new InterruptHook(["pay"])]);
    const paused = await w.invoke("pay bob 5");
    expect(paused.stopReason).toBe("interrupt");
    expect(paused.interrupts?.[0]?.reason).toMatchObject({ kind: "tool_approval", tool: "pay", input });
    expect(w.paid).toEqual([]);
    const done = await w.invoke(approve(paused));
    expect(done.stopReason).toBe("endTurn");
    expect(w.paid).toEqual([input]);
  });

  it("InterruptHook: a thread grant lets the call run without asking", async () => {
    const w = world([new InterruptHook(["pay"], { remember: "thread" })]);
    const grant = { tool: "pay", scope: "thread", threadId: "t1", grantedAt: Date.now() };
    const done = await w.invoke("pay bob 5", { threadId: "t1", forwardedProps: { kaboo_grants: [grant] } });
    expect(done.stopReason).toBe("endTurn");
    expect(w.paid).toEqual([input]);
  });

  it("InterruptHook with a secret: an unsigned grant asks, a signed one lets the call run", async () => {
    const secret = "a secret of the host, never the client's";
    const grant: Grant = { tool: "pay", scope: "thread", threadId: "t1", grantedAt: Date.now() };
    const hook = () => new InterruptHook(["pay"], { remember: "thread", secret, logger: silent });
    const state = (g: Grant) => ({ threadId: "t1", forwardedProps: { kaboo_grants: [g] } });
    const unsigned = world([hook()]);
    expect((await unsigned.invoke("pay bob 5", state(grant))).stopReason).toBe("interrupt");
    expect(unsigned.paid).toEqual([]);
    const signed = world([hook()]);
    expect((await signed.invoke("pay bob 5", state(await signGrant(grant, secret)))).stopReason).toBe("endTurn");
    expect(signed.paid).toEqual([input]);
  });

  it("MaxToolCallsGuard with no calls allowed: the call is refused and nothing runs", async () => {
    const w = world([new MaxToolCallsGuard({ maxCalls: 0 })]);
    await w.invoke("pay bob 5");
    expect(w.paid).toEqual([]);
  });

  it("ToolAttachmentsHook: the model reads the tool's attachment as an image, without the field", async () => {
    const shot = { ok: true, attachments: [{ name: "shot.png", mimeType: "image/png", data: PNG }] };
    const w = world([new ToolAttachmentsHook()], JSON.stringify(shot));
    expect((await w.invoke("pay bob 5")).stopReason).toBe("endTurn");
    const read = w.resultRead();
    expect(read).toMatchObject({ kinds: ["text", "image"], text: '{"ok":true}', image: PNG });
    expect(read?.json).not.toContain("attachments");
  });

  it("EventPublisher: start, interrupt; then start, tool start and end, complete", async () => {
    const { events, pausedEvents, paid } = await publishedRun(world);
    expect(paid).toEqual([input]);
    expect(events.map((e) => e.type)).toEqual([
      "agent_start",
      "tool_start",
      "interrupt",
      "agent_start",
      "tool_start",
      "tool_end",
      "agent_complete",
    ]);
    expect(pausedEvents).toBe(3);
    const end = events.find((e) => e.type === "tool_end");
    expect(end?.data).toMatchObject({ tool_name: "pay", status: "success", tool_result: "paid bob" });
    expect(events.every((e) => e.data.thread_id === "t1" && e.data.agent_name === "bank")).toBe(true);
  });
});

/** A gated run, paused then approved, traced: the span tree by operation (`chat gpt-x` reads `chat`). */
async function tracedRun(world: (hooks: HookProvider[]) => World) {
  const t = tracing();
  const w = world([new InterruptHook(["pay"]), t.hook]);
  const paused = await w.invoke("pay bob 5", { threadId: "t1" });
  await w.invoke(approve(paused), { threadId: "t1" });
  const op = (name: string) => name.split(" ")[0];
  const tree = t.tree().map((line) => line.split(" < ").map(op).join(" < "));
  const calls = t.spans().filter((s) => s.name === "execute_tool pay");
  const decisions = calls.map((s) => s.attributes["kaboo.approval.decision"]);
  // Across the pause: the call that ran links to the span that asked (kept in the paused run's state).
  const linked = calls[1]?.links.map((l) => l.context.spanId) ?? [];
  return { tree, decisions, paid: w.paid, linked: linked.length === 1 && linked[0] === calls[0]?.spanContext().spanId };
}

describe("TracingHook on both runners", () => {
  it("gives the same span tree: invoke_agent per invocation, chat and execute_tool under it, asked then approved", async () => {
    const [ours, theirs] = await Promise.all(runners.map((r) => tracedRun(r.world)));
    expect(theirs?.paid).toEqual([input]);
    expect(theirs?.decisions).toEqual(["asked", "approved"]);
    expect(theirs?.tree).toContain("execute_tool < invoke_agent");
    expect(theirs?.tree).toEqual(ours?.tree);
    expect([ours?.linked, theirs?.linked]).toEqual([true, true]);
  });
});

describe("StateEffectsHook on both runners", () => {
  it("turns the call that ran into the same JSON Patch of the shared state", async () => {
    const deltasOf = async (r: (typeof runners)[number]) => {
      const state: Record<string, unknown> = {
        threadId: "t1",
        [STATE_EFFECTS_KEY]: [
          { tool: "pay", map: (c: StateEffectCall) => ({ lastPaid: (c.input as { to: string }).to }) },
        ],
      };
      const w = r.world([new StateEffectsHook({ agentName: "bank" })]);
      await w.invoke("pay bob 5", state);
      return { paid: w.paid, deltas: stateDeltas(state).map((d) => ({ tool: d.tool, agent: d.agent, ops: d.ops })) };
    };
    const [ours, theirs] = await Promise.all(runners.map(deltasOf));
    expect(ours?.deltas).toEqual([
      { tool: "pay", agent: "bank", ops: [{ op: "add", path: "/lastPaid", value: "bob" }] },
    ]);
    expect(theirs).toEqual(ours);
  });
});

describe("EventPublisher on both runners", () => {
  it("publishes events of the same shape, in the same order", async () => {
    const [ours, theirs] = await Promise.all(runners.map((r) => publishedRun(r.world)));
    expect(shape(theirs?.events ?? [])).toEqual(shape(ours?.events ?? []));
  });
});
