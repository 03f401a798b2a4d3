// kaboo-workflows/strands on the real Strands TypeScript SDK (1.19.0, from test/strands/package.json), driven by
// a scripted model of the SDK's own Model interface: InterruptHook's question pauses the Strands agent with
// Strands' interrupt, the answer resumes it, and the execution ledger makes the approved call run once.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import { AfterToolCallEvent } from "../../src/agent/events.js";
import type { HookProvider } from "../../src/agent/hooks.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { executionKey } from "../../src/agent/ledger/ledger.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { PRINCIPAL_KEY } from "../../src/agent/run-context.js";
import { kabooPlugin } from "../../src/strands/index.js";
import { type Strands, type StrandsRunResult, bank, loadStrands, scriptedModel } from "./strands-sdk.js";

let strands: Strands;
beforeAll(async () => {
  strands = await loadStrands();
}, 180_000);

const call = { name: "pay", toolUseId: "call_1", input: { to: "bob", cents: 500 } };

const answer = (paused: StrandsRunResult, response: unknown) => [
  { interruptResponse: { interruptId: paused.interrupts?.[0]?.id, response } },
];
const lastText = (r: StrandsRunResult) => r.lastMessage.content.map((c) => c.text ?? "").join("");

describe("InterruptHook on a Strands agent", () => {
  it("pauses a gated call with Strands' interrupt, and the approval runs it once", async () => {
    const { paid, agent } = bank(strands, call);
    const audit = new MemoryAuditLog();
    const a = agent({ hooks: [new InterruptHook(["pay"])], audit });
    const paused = await a.invoke("pay bob 5");
    expect(paused.stopReason).toBe("interrupt");
    expect(paused.interrupts).toHaveLength(1);
    expect(paused.interrupts?.[0]?.id).toBe("hook:beforeToolCall:call_1:kaboo_approval");
    expect(paused.interrupts?.[0]?.reason).toMatchObject({ kind: "tool_approval", tool: "pay", input: call.input });
    expect(paid).toEqual([]);

    const done = await a.invoke(answer(paused, { approved: true }));
    expect(done.stopReason).toBe("endTurn");
    expect(lastText(done)).toBe("done: paid bob");
    expect(paid).toEqual([call.input]);
    const kinds = (await audit.entries("")).map((e) => e.kind);
    expect(kinds).toEqual(["request", "decision", "execution"]);
  });

  it("a denial cancels the call with a note the model reads", async () => {
    const { paid, agent } = bank(strands, call);
    const a = agent({ hooks: [new InterruptHook(["pay"])] });
    const paused = await a.invoke("pay bob 5");
    const done = await a.invoke(answer(paused, { approved: false }));
    expect(paid).toEqual([]);
    expect(lastText(done)).toMatch(/^done: .*denied/i);
  });

  it("a remembered grant lets the call run without asking", async () => {
    const { paid, agent } = bank(strands, call);
    // Remembered only where the rule allows it (`remember: "thread"`; the default is "once").
    const a = agent({ hooks: [new InterruptHook(["pay"], { remember: "thread" })] });
    const grant = { tool: "pay", scope: "thread", threadId: "t1", grantedAt: Date.now() };
    const state = { threadId: "t1", forwardedProps: { kaboo_grants: [grant] } };
    const done = await a.invoke("pay bob 5", { invocationState: state });
    expect(done.stopReason).toBe("endTurn");
    expect(paid).toEqual([call.input]);
  });

  it("the same answer given twice, at once, to two copies of the paused agent runs the call once", async () => {
    const { paid, agent } = bank(strands, call);
    const ledger = new MemoryExecutionLedger();
    const first = agent({ hooks: [new InterruptHook(["pay"])], ledger });
    const paused = await first.invoke("pay bob 5");
    // The paused state round-trips through Strands' snapshot (what its session manager stores).
    const snapshot = JSON.parse(JSON.stringify(first.takeSnapshot({ preset: "session" })));
    const second = agent({ hooks: [new InterruptHook(["pay"])], ledger });
    second.loadSnapshot(snapshot);
    const approve = answer(paused, { approved: true });
    const [a, b] = await Promise.all([first.invoke(approve), second.invoke(approve)]);
    expect(paid).toEqual([call.input]);
    expect([a.stopReason, b.stopReason]).toEqual(["endTurn", "endTurn"]);
    // The copy that did not run it reads the recorded result, not a second payment.
    expect([lastText(a), lastText(b)]).toEqual(["done: paid bob", "done: paid bob"]);
  });
});

describe("four eyes on a Strands agent", () => {
  it("the requester and one approver twice never make the quorum; two eligible people do, and the call runs once", async () => {
    const { paid, agent } = bank(strands, call);
    const audit = new MemoryAuditLog();
    const eligible = (p: string) => ["bob", "carol"].includes(p);
    const a = agent({
      hooks: [new InterruptHook([{ pattern: "pay", approvals: { required: 2, eligible, forbidRequester: true } }])],
      audit,
    });
    const as = (principal: string) => ({ invocationState: { [PRINCIPAL_KEY]: principal } });
    let paused = await a.invoke("pay bob 5", as("ann"));
    expect(paused.stopReason).toBe("interrupt");
    for (const who of ["ann", "bob", "bob"]) {
      const next = await a.invoke(answer(paused, { approved: true }), as(who));
      expect(next.stopReason, `after ${who}`).toBe("interrupt");
      expect(paid).toEqual([]);
      paused = next;
    }
    const done = await a.invoke(answer(paused, { approved: true }), as("carol"));
    expect(done.stopReason).toBe("endTurn");
    expect(paid).toEqual([call.input]);
    // The trail names both approvers, in order, and the one execution.
    const entries = await audit.entries("");
    const approvers = entries.flatMap((e) => (e.kind === "decision" && e.principal ? [e.principal] : []));
    expect(approvers).toEqual(expect.arrayContaining(["bob", "carol"]));
    expect(entries.filter((e) => e.kind === "execution")).toHaveLength(1);
  });
});

describe("the paused agent through Strands' session manager", () => {
  it("a new agent on the same session resumes with the approval; the call runs once, and again it does not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kaboo-strands-session-"));
    try {
      const session = (at = dir) =>
        new strands.SessionManager({ sessionId: "s1", storage: { snapshot: new strands.FileStorage(at) } });
      const { paid, agent } = bank(strands, call);
      const ledger = new MemoryExecutionLedger();
      const paused = await agent({ hooks: [new InterruptHook(["pay"])], ledger }, session()).invoke("pay bob 5");
      expect(paused.stopReason).toBe("interrupt");
      cpSync(dir, `${dir}-copy`, { recursive: true }); // the stored pause, kept for a second resume
      // Another process: a new agent, restored by its session manager from the stored snapshot.
      const resumed = agent({ hooks: [new InterruptHook(["pay"])], ledger }, session());
      const done = await resumed.invoke(answer(paused, { approved: true }));
      expect(done.stopReason).toBe("endTurn");
      expect(paid).toEqual([call.input]);
      // The snapshot stored before the approval, resumed once more with the same answer: the ledger answers.
      const again = agent({ hooks: [new InterruptHook(["pay"])], ledger }, session(`${dir}-copy`));
      const replayed = await again.invoke(answer(paused, { approved: true }));
      expect(lastText(replayed)).toBe("done: paid bob");
      expect(paid).toEqual([call.input]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}-copy`, { recursive: true, force: true });
    }
  });
});

describe("the execution ledger around Strands tools", () => {
  it("a call settled before is not run again; the model reads the recorded result", async () => {
    const { paid, agent } = bank(strands, call);
    const ledger = new MemoryExecutionLedger();
    await agent({ ledger }).invoke("pay bob 5");
    const again = await agent({ ledger }).invoke("pay bob 5");
    expect(paid).toEqual([call.input]);
    expect(lastText(again)).toBe("done: paid bob");
  });

  it("a claim without a result (a crash mid-call) asks the outcome question, never runs the call unasked", async () => {
    let now = 1_000;
    const ledger = new MemoryExecutionLedger({ now: () => now });
    const key = executionKey({ threadId: "", toolUseId: call.toolUseId, input: call.input });
    expect((await ledger.claim(key, { leaseMs: 10 })).status).toBe("claimed");
    now += 60_000; // the process that held the claim died; its lease ran out

    const { paid, agent } = bank(strands, call);
    const a = agent({ ledger });
    const paused = await a.invoke("pay bob 5");
    expect(paused.stopReason).toBe("interrupt");
    expect(paused.interrupts?.[0]?.reason).toMatchObject({ kind: "outcome_unknown", tool: "pay", claimedAt: 1_000 });
    expect(paid).toEqual([]);

    const done = await a.invoke(answer(paused, { action: "treat_as_done" }));
    expect(done.stopReason).toBe("endTurn");
    expect(paid).toEqual([]);
    expect(lastText(done)).toMatch(/already ran/);
    // Recorded: a later copy of the call reads the answer, it does not ask again or run.
    const later = await agent({ ledger }).invoke("pay bob 5");
    expect(later.stopReason).toBe("endTurn");
    expect(paid).toEqual([]);
  });

  it("'run it again' after a lost claim runs the call once", async () => {
    let now = 1_000;
    const ledger = new MemoryExecutionLedger({ now: () => now });
    const key = executionKey({ threadId: "", toolUseId: call.toolUseId, input: call.input });
    await ledger.claim(key, { leaseMs: 10 });
    now += 60_000;
    const { paid, agent } = bank(strands, call);
    const a = agent({ ledger });
    const paused = await a.invoke("pay bob 5");
    const done = await a.invoke(answer(paused, { action: "run_again" }));
    expect(done.stopReason).toBe("endTurn");
    expect(paid).toEqual([call.input]);
  });
});

describe("a tool that asks its own question on Strands", () => {
  it("pauses; the answer runs it once (its claim is released while it waits)", async () => {
    const ran: unknown[] = [];
    const confirm = new strands.FunctionTool({
      name: "pay",
      description: "Pays after asking.",
      inputSchema: { type: "object", properties: { to: { type: "string" } } },
      callback: (input, context) => {
        const ok = (context as { interrupt(p: { name: string; reason: string }): unknown }).interrupt({
          name: "confirm",
          reason: "sure?",
        });
        ran.push({ input, ok });
        return "paid";
      },
    });
    const agent = new strands.Agent({
      model: scriptedModel(strands, call),
      tools: [confirm],
      printer: false,
      plugins: [kabooPlugin(strands, {})],
    });
    const paused = await agent.invoke("pay bob 5");
    expect(paused.stopReason).toBe("interrupt");
    expect(paused.interrupts?.[0]?.id).toBe("tool:call_1:confirm");
    const done = await agent.invoke(answer(paused, "yes"));
    expect(done.stopReason).toBe("endTurn");
    expect(ran).toEqual([{ input: call.input, ok: "yes" }]);
    expect(lastText(done)).toBe("done: paid");
  });
});

describe("a retry on Strands", () => {
  it("a call an AfterToolCall hook retries runs again under its claim, and the ledger keeps the last result", async () => {
    let attempts = 0;
    const flaky = new strands.FunctionTool({
      name: "pay",
      description: "Fails the first time.",
      inputSchema: { type: "object", properties: { to: { type: "string" } } },
      callback: () => {
        attempts++;
        if (attempts === 1) throw new Error("bank busy");
        return "paid";
      },
    });
    const retryOnce: HookProvider = {
      registerHooks(registry) {
        registry.addCallback(AfterToolCallEvent, (e) => {
          if (e.result.status === "error" && attempts === 1) e.retry = true;
        });
      },
    };
    const ledger = new MemoryExecutionLedger();
    const make = () =>
      new strands.Agent({
        model: scriptedModel(strands, call),
        tools: [flaky],
        printer: false,
        plugins: [kabooPlugin(strands, { hooks: [retryOnce], ledger })],
      });
    const done = await make().invoke("pay bob 5");
    expect(attempts).toBe(2);
    expect(lastText(done)).toBe("done: paid");
    // Recorded: the success, under the one claim (a copy of the call replays it, nothing runs).
    const again = await make().invoke("pay bob 5");
    expect(attempts).toBe(2);
    expect(lastText(again)).toBe("done: paid");
  });
});
