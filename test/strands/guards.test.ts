// The guards and the sanitizer on a real Strands agent (SDK 1.19.0, test/strands/package.json): the same
// hook classes as on our runner, through kabooPlugin's event mapping.
import { beforeAll, describe, expect, it } from "vitest";
import { MaxToolCallsGuard } from "../../src/hooks/max-calls-guard.js";
import { StopGuard } from "../../src/hooks/stop-guard.js";
import { ToolNameSanitizer } from "../../src/hooks/tool-name-sanitizer.js";
import { type Strands, type StrandsRunResult, bank, loadStrands } from "./strands-sdk.js";

let strands: Strands;
beforeAll(async () => {
  strands = await loadStrands();
}, 180_000);

const pay = (n: number, name = "pay") => ({ name, toolUseId: `call_${n}`, input: { to: `p${n}`, cents: n } });
const results = (agent: {
  messages: { content: { type: string; status?: string; content?: { text?: string }[] }[] }[];
}) =>
  agent.messages
    .flatMap((m) => m.content)
    .filter((b) => b.type === "toolResultBlock")
    .map((b) => `${b.status}: ${(b.content ?? []).map((c) => c.text ?? "").join("")}`);
const lastText = (r: StrandsRunResult) => r.lastMessage.content.map((c) => c.text ?? "").join("");

describe("MaxToolCallsGuard on a Strands agent", () => {
  it("runs the allowed calls, refuses the next with a note, and stops the run when the model goes on", async () => {
    const { paid, agent } = bank(strands, [pay(1), pay(2), pay(3), pay(4)]);
    const a = agent({ hooks: [new MaxToolCallsGuard({ maxCalls: 1 })] });
    const result = await a.invoke("pay four people");
    expect(paid).toEqual([pay(1).input]);
    expect(result.stopReason).toBe("cancelled");
    const seen = results(a as never);
    expect(seen[0]).toBe("success: paid p1");
    expect(seen[1]).toMatch(/^error: Tool call limit reached: this run allows 1 tool call/);
    expect(seen[2]).toMatch(/^error: Tool call limit exceeded \(1\)/);
    expect(seen).toHaveLength(3);
  });

  it("counts per invocation: the next invoke starts from zero", async () => {
    const { paid, agent } = bank(strands, [pay(1)]);
    const guard = new MaxToolCallsGuard({ maxCalls: 1 });
    await agent({ hooks: [guard], ledger: false }).invoke("pay");
    await agent({ hooks: [guard], ledger: false }).invoke("pay");
    expect(paid).toEqual([pay(1).input, pay(1).input]);
  });
});

describe("StopGuard on a Strands agent", () => {
  it("a stop request cancels the call before it runs and ends the run", async () => {
    const { paid, agent } = bank(strands, [pay(1), pay(2)]);
    let stop = false;
    const a = agent({ hooks: [new StopGuard(() => stop)] });
    stop = true;
    const result = await a.invoke("pay two people");
    expect(paid).toEqual([]);
    expect(result.stopReason).toBe("cancelled");
    expect(results(a as never)[0]).toMatch(/^error: The run was stopped on request; the tool "pay" was not run\./);
  });

  it("lets calls run while the check says no", async () => {
    const { paid, agent } = bank(strands, [pay(1)]);
    const result = await agent({ hooks: [new StopGuard(() => false)] }).invoke("pay");
    expect(result.stopReason).toBe("endTurn");
    expect(paid).toEqual([pay(1).input]);
  });
});

describe("ToolNameSanitizer on a Strands agent", () => {
  it("repairs a garbled name in the model's response, so Strands finds and runs the tool", async () => {
    const { paid, agent } = bank(strands, [pay(1, "functions.pay<|channel|>commentary")]);
    const a = agent({ hooks: [new ToolNameSanitizer()] });
    const result = await a.invoke("pay");
    expect(paid).toEqual([pay(1).input]);
    expect(lastText(result)).toBe("done: paid p1");
    // The transcript records the clean name.
    const uses = a.messages.flatMap((m) => m.content).filter((b) => b.type === "toolUseBlock");
    expect(uses.map((b) => (b as unknown as { name: string }).name)).toEqual(["pay"]);
  });

  it("without it, Strands cannot find the garbled name and nothing runs", async () => {
    const { paid, agent } = bank(strands, [pay(1, "functions.pay<|channel|>commentary")]);
    await agent({}).invoke("pay");
    expect(paid).toEqual([]);
  });
});
