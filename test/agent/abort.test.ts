import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { getEventListeners } from "node:events";
import { linkedAbort } from "../../src/agent/shared/abort.js";
import { raceAbort } from "../../src/agent/shared/abort-wait.js";
import {
  Agent,
  AfterInvocationEvent,
  AfterToolCallEvent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type Model,
  type ToolResultBlock,
} from "../../src/index.js";
import { deferred, echoTool, expectConsistentTranscript } from "./helpers.js";

const resultsOf = (agent: Agent) =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));

/** A tool that never finishes on its own (ignores its signal, as badly written tools do). */
function hangingTool(started: () => void) {
  return tool({
    name: "hang",
    description: "",
    inputSchema: z.object({}),
    callback: () => {
      started();
      return new Promise<string>(() => undefined);
    },
  });
}

describe("abort", () => {
  test("while a tool runs: cancelled, AfterInvocation fired, the call gets an error result, run returns", async () => {
    const started = deferred();
    const ac = new AbortController();
    const { tool: quick, calls } = echoTool("quick");
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [
            { name: "hang", id: "h" },
            { name: "quick", input: { x: 1 }, id: "q" },
          ],
        },
        { text: "never" },
      ],
    });
    const agent = new Agent({ model, tools: [hangingTool(started.resolve), quick] });
    let afterInv = 0;
    agent.hooks.addCallback(AfterInvocationEvent, () => void afterInv++);
    const afterTool: string[] = [];
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void afterTool.push(e.toolUse.toolUseId));
    const run = agent.invoke("go", { signal: ac.signal });
    await started.promise;
    // Let the quick call settle (it only needs microtasks) before pressing stop.
    await new Promise((r) => setTimeout(r, 0));
    ac.abort(new Error("user pressed stop"));
    const r = await run;
    expect(r.stopReason).toBe("cancelled");
    expect(afterInv).toBe(1);
    expect(model.calls).toBe(1);
    expect(calls).toEqual([1]);
    expect(afterTool.sort()).toEqual(["h", "q"]);
    const res = new Map(resultsOf(agent).map((x) => [x.toolUseId, x]));
    expect(res.get("h")!.status).toBe("error");
    expect(res.get("q")!.status).toBe("success");
    expectConsistentTranscript(agent.messages);
    expect(agent.running).toBe(false);
  });

  test("the tool sees its signal aborted", async () => {
    const ac = new AbortController();
    let seen: AbortSignal | undefined;
    const t = tool({
      name: "watch",
      description: "",
      inputSchema: z.object({}),
      callback: (_i, ctx) => {
        seen = ctx.signal;
        ac.abort();
        return "late";
      },
    });
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "watch" }] }, { text: "x" }] }),
      tools: [t],
    });
    const r = await agent.invoke("go", { signal: ac.signal });
    expect(seen?.aborted).toBe(true);
    expect(r.stopReason).toBe("cancelled");
    expectConsistentTranscript(agent.messages);
  });

  test("during streaming text: the partial text is kept", async () => {
    const ac = new AbortController();
    const model = new ScriptedModel({ chunkSize: 2, delayMs: 2, script: [{ text: "abcdefghijklmnopqrstuvwxyz" }] });
    const agent = new Agent({ model });
    const gen = agent.stream("go", { signal: ac.signal });
    let deltas = 0;
    let next = await gen.next();
    while (!next.done) {
      if (next.value.type === "model" && next.value.event.type === "contentBlockDelta" && ++deltas === 3) ac.abort();
      next = await gen.next();
    }
    const r = next.value;
    expect(r.stopReason).toBe("cancelled");
    const text = r.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    expect(text.length).toBeGreaterThanOrEqual(6);
    expect("abcdefghijklmnopqrstuvwxyz".startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(26);
    expect(agent.messages.at(-1)).toEqual(r.message);
  });

  test("during a tool call's streamed input: no toolUse reaches the transcript", async () => {
    const ac = new AbortController();
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({
      chunkSize: 1,
      delayMs: 1,
      script: [{ text: "ok", toolCalls: [{ name: "echo", input: { x: 123456 } }] }],
    });
    const agent = new Agent({ model, tools: [t] });
    const gen = agent.stream("go", { signal: ac.signal });
    let next = await gen.next();
    while (!next.done) {
      const v = next.value;
      if (v.type === "model" && v.event.type === "contentBlockDelta" && v.event.delta.type === "toolUseInput")
        ac.abort();
      next = await gen.next();
    }
    expect(next.value.stopReason).toBe("cancelled");
    expect(calls).toEqual([]);
    expect(agent.messages.flatMap((m) => m.content).some((b) => b.type === "toolUse")).toBe(false);
    expectConsistentTranscript(agent.messages);
  });

  test("a model that ignores the signal still lets the run end promptly", async () => {
    const ac = new AbortController();
    const started = deferred();
    const model: Model = {
      modelId: "stuck",
      async *stream() {
        yield { type: "messageStart", role: "assistant" };
        started.resolve();
        await new Promise(() => undefined);
      },
    };
    const agent = new Agent({ model });
    const run = agent.invoke("go", { signal: ac.signal });
    await started.promise;
    ac.abort();
    const r = await run;
    expect(r.stopReason).toBe("cancelled");
  });

  test("before start: no model call, cancelled, AfterInvocation fired", async () => {
    const ac = new AbortController();
    ac.abort();
    const model = new ScriptedModel({ script: [{ text: "never" }] });
    const agent = new Agent({ model });
    let fired = false;
    agent.hooks.addCallback(AfterInvocationEvent, () => void (fired = true));
    const r = await agent.invoke("go", { signal: ac.signal });
    expect(r.stopReason).toBe("cancelled");
    expect(model.calls).toBe(0);
    expect(fired).toBe(true);
  });

  test("abort wins over interrupts raised in the same batch: no pending interrupts, transcript consistent", async () => {
    const ac = new AbortController();
    const started = deferred();
    const { tool: t } = echoTool();
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [
            { name: "hang", id: "h" },
            { name: "echo", input: { x: 1 }, id: "e" },
          ],
        },
      ],
    });
    const agent = new Agent({ model, tools: [hangingTool(started.resolve), t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.name === "echo") e.interrupt({ name: "approve" });
    });
    const run = agent.invoke("go", { signal: ac.signal });
    await started.promise;
    ac.abort();
    const r = await run;
    expect(r.stopReason).toBe("cancelled");
    expect(r.interrupts).toEqual([]);
    expect(agent.interruptState.activated).toBe(false);
    expect(resultsOf(agent).map((x) => [x.toolUseId, x.status])).toEqual([
      ["h", "error"],
      ["e", "error"],
    ]);
    expectConsistentTranscript(agent.messages);
    // The agent takes new input afterwards.
    agent.model = new ScriptedModel({ script: [{ text: "fine" }] });
    expect((await agent.invoke("again")).stopReason).toBe("endTurn");
  });

  test("a consumer that stops iterating cancels the run and the agent is free once the run has wound down", async () => {
    const started = deferred();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "hang" }] }, { text: "x" }] });
    const agent = new Agent({ model, tools: [hangingTool(started.resolve)] });
    let afterInv = 0;
    agent.hooks.addCallback(AfterInvocationEvent, () => void afterInv++);
    for await (const e of agent.stream("go")) {
      if (e.type === "toolStart") break;
    }
    expect(agent.running).toBe(false);
    expect(afterInv).toBe(1);
    expectConsistentTranscript(agent.messages);
  });

  test("a resume aborted before its batch runs closes the paused calls as cancelled", async () => {
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "echo", input: { x: 1 }, id: "k" }] }, { text: "end" }],
    });
    const agent = new Agent({ model, tools: [t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => void e.interrupt({ name: "approve" }));
    await agent.invoke("go");
    const ac = new AbortController();
    ac.abort();
    const r = await agent.invoke(
      [{ interruptResponse: { interruptId: "hook:beforeToolCall:k:approve", response: true } }],
      {
        signal: ac.signal,
      },
    );
    expect(r.stopReason).toBe("cancelled");
    expect(calls).toEqual([]);
    expect(agent.interruptState.activated).toBe(false);
    expect(resultsOf(agent)).toMatchObject([{ toolUseId: "k", status: "error" }]);
    expectConsistentTranscript(agent.messages);
  });

  test("a tool whose turn comes after the abort is never called (sequential)", async () => {
    const ac = new AbortController();
    const first = tool({
      name: "first",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        ac.abort();
        return "done";
      },
    });
    const { tool: second, calls } = echoTool("second");
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "first" }, { name: "second", input: { x: 1 } }] }],
    });
    const agent = new Agent({ model, tools: [first, second], toolExecutor: "sequential" });
    const r = await agent.invoke("go", { signal: ac.signal });
    expect(r.stopReason).toBe("cancelled");
    expect(calls).toEqual([]);
    expectConsistentTranscript(agent.messages);
  });
});
describe("linkedAbort", () => {
  test("follows the outer signal with its reason, now or later; aborts alone without touching it", () => {
    const outer = new AbortController();
    const child = linkedAbort(outer.signal);
    expect(child.signal.aborted).toBe(false);
    outer.abort("stop");
    expect(child.signal.reason).toBe("stop");
    const already = linkedAbort(outer.signal);
    expect(already.signal.aborted).toBe(true);
    expect(already.signal.reason).toBe("stop");
    const other = new AbortController();
    const alone = linkedAbort(other.signal);
    alone.abort("timeout");
    expect(alone.signal.reason).toBe("timeout");
    expect(other.signal.aborted).toBe(false);
  });

  test("unlinked, it no longer follows; without an outer signal it is a plain controller; a given one is linked", () => {
    const outer = new AbortController();
    const child = linkedAbort(outer.signal);
    child.unlink();
    outer.abort();
    expect(child.signal.aborted).toBe(false);
    expect(linkedAbort().signal.aborted).toBe(false);
    const mine = new AbortController();
    const source = new AbortController();
    linkedAbort(source.signal, mine);
    source.abort("x");
    expect(mine.signal.reason).toBe("x");
  });

  test("lets go of the outer signal once the child aborts (its own or a given controller) or is unlinked", () => {
    const outer = new AbortController();
    const count = () => getEventListeners(outer.signal, "abort").length;
    const child = linkedAbort(outer.signal);
    expect(count()).toBe(1);
    child.abort("timeout");
    expect(count()).toBe(0);
    const mine = new AbortController();
    linkedAbort(outer.signal, mine);
    mine.abort();
    expect(count()).toBe(0);
    const unlinked = linkedAbort(outer.signal);
    unlinked.unlink();
    expect(count()).toBe(0);
    // A child already aborted follows nothing.
    const dead = new AbortController();
    dead.abort();
    linkedAbort(outer.signal, dead);
    expect(count()).toBe(0);
    outer.abort("late");
    expect(unlinked.signal.aborted).toBe(false);
  });

  test("a batch of 30 concurrent calls adds one abort listener to the batch's signal, not one a call", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const { tool: echo, calls } = echoTool();
      const toolCalls = Array.from({ length: 30 }, (_, i) => ({ name: "echo", input: { x: i } }));
      const model = new ScriptedModel({ script: [{ toolCalls }, { text: "done" }] });
      const agent = new Agent({ model, tools: [echo] });
      await agent.invoke("go", { signal: new AbortController().signal });
      // Node reports the warning on the next tick.
      await new Promise((r) => setTimeout(r, 10));
      expect(calls).toHaveLength(30);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  test("raceAbort: many waits on one signal all reject with its reason; settled ones let go", async () => {
    const outer = new AbortController();
    const never = new Promise<number>(() => undefined);
    const waits = Array.from({ length: 25 }, () => raceAbort(never, outer.signal));
    await expect(raceAbort(Promise.resolve(7), outer.signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error("own")), outer.signal)).rejects.toThrow("own");
    outer.abort("stop");
    for (const w of waits) await expect(w).rejects.toBe("stop");
    await expect(raceAbort(never, outer.signal)).rejects.toBe("stop");
  });
});
