/**
 * The adapter across instances: every request builds its own kabooToolApproval and withLedger over a
 * thread store's ledger (as Workers or server processes sharing one store do), and a process that dies
 * mid-call leaves a claim the next one never runs again.
 */
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { approvalReason } from "../../src/ai-sdk/index.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import { MemoryThreadStore } from "../../src/stores/memory.js";
import { answered, approvalRequests, bank, lastToolResults, request, scriptedModel } from "./fixtures.js";

const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
const toBob = { toolName: "transfer", input: { to: "bob", cents: 5 } };

describe("over a thread store's ledger, one instance per request", () => {
  it("runs an approved call once across instances, and the second of two at once is told it is in progress", async () => {
    let open!: () => void;
    const { runs, tools } = bank({ slow: new Promise<void>((resolve) => (open = resolve)) });
    const store = new MemoryThreadStore();
    const model = scriptedModel([toBob]);
    const approval = { rules: ["transfer"], threadId: "t1" };
    const first = await request({ model, tools, messages: pay, ledger: store.ledger("t1"), approval });
    const messages = answered(pay, first.response.messages, { approved: true });
    const a = request({ model, tools, messages, ledger: store.ledger("t1"), approval });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await request({ model, tools, messages, ledger: store.ledger("t1"), approval });
    expect(JSON.stringify(lastToolResults(model))).toContain("is in progress elsewhere");
    open();
    await a;
    await request({ model, tools, messages, ledger: store.ledger("t1"), approval });
    expect(runs.transfer).toBe(1);
  });

  it("never runs again a call whose process died mid-call: the model reads 'did this go through?'", async () => {
    let clock = 1_000_000;
    const store = new MemoryThreadStore({ now: () => clock });
    const hung = bank({ slow: new Promise<void>(() => {}) });
    const model = scriptedModel([toBob]);
    const approval = { rules: ["transfer"], threadId: "t1", now: () => clock };
    const first = await request({ model, tools: hung.tools, messages: pay, ledger: store.ledger("t1"), approval });
    const messages = answered(pay, first.response.messages, { approved: true });
    // The first process starts the transfer and never returns (it died); its claim's lease runs out.
    void request({ model, tools: hung.tools, messages, ledger: store.ledger("t1"), approval });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(hung.runs.transfer).toBe(1);
    clock += 16 * 60 * 1000;
    const next = bank();
    await request({ model, tools: next.tools, messages, ledger: store.ledger("t1"), approval });
    expect(next.runs.transfer).toBe(0);
    expect(JSON.stringify(lastToolResults(model))).toContain("did this go through?");
  });

  it("a thread grant given through one instance covers the next call in another", async () => {
    const store = new MemoryThreadStore();
    const grants = new MemoryGrantStore();
    const { runs, tools } = bank();
    const model = scriptedModel([toBob, toBob]);
    const approval = { rules: [{ pattern: "transfer", remember: "thread" as const }], threadId: "t1", grants };
    const first = await request({ model, tools, messages: pay, ledger: store.ledger("t1"), approval });
    const reason = approvalReason({ scope: "thread" });
    const messages = answered(pay, first.response.messages, { approved: true, reason });
    await request({ model, tools, messages, ledger: store.ledger("t1"), approval });
    const next = await request({ model, tools, messages: pay, ledger: store.ledger("t1"), approval });
    expect(approvalRequests(next.response.messages).filter((r) => r.isAutomatic !== true)).toEqual([]);
    expect(runs.transfer).toBe(2);
  });
});
