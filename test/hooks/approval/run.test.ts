import { describe, expect, test } from "vitest";
import { Agent, ScriptedModel } from "../../../src/index.js";
import {
  approvalDecisions,
  approvalName,
  CONSUMED_APPROVALS_KEY,
  recordDecision,
  recordFingerprint,
  remembers,
  runGrants,
} from "../../../src/hooks/approval/run.js";
import { hostState } from "../host-state.js";

const agent = () => new Agent({ model: new ScriptedModel({ script: [] }) });

describe("approval run bookkeeping", () => {
  test("names include the agent when it has one", () => {
    expect(approvalName("")).toBe("kaboo_approval");
    expect(approvalName("bank")).toBe("bank:kaboo_approval");
  });
  test("decisions stay in their own run and never appear in JSON", () => {
    const a = hostState();
    const b = hostState();
    recordDecision(a, {
      decision: "approved",
      tool: "t",
      toolUseId: "1",
      subject: { key: "k", label: "l" },
      scope: "thread",
    });
    recordDecision(a, {
      decision: "approved",
      tool: "t",
      toolUseId: "2",
      subject: { key: "o", label: "l" },
      scope: "once",
    });
    expect(approvalDecisions(a)).toHaveLength(2);
    expect(approvalDecisions(b)).toHaveLength(0);
    expect(runGrants(a)).toEqual([{ tool: "t", subjectKey: "k" }]);
    expect(JSON.stringify(a)).not.toMatch(/approved/);
    expect(Object.keys(a).sort()).toEqual(["forwardedProps", "threadId"]);
  });
  test("the host remembers only with grants present and a publishing exchange", () => {
    expect(remembers(hostState({ grants: [], publishes: true }))).toBe(true);
    expect(remembers(hostState({ grants: [] }))).toBe(false);
    expect(remembers(hostState({ publishes: true }))).toBe(false);
    expect(remembers({ forwardedProps: "x" })).toBe(false);
  });
  test("a fingerprint binds an approval to one call; the record is bounded", () => {
    const ag = agent();
    expect(recordFingerprint(ag, "i1", "pay", "u1", { a: 1 })).toBe(true);
    expect(recordFingerprint(ag, "i1", "pay", "u1", { a: 1 })).toBe(true);
    expect(recordFingerprint(ag, "i1", "pay", "u1", { a: 2 })).toBe(false);
    expect(recordFingerprint(ag, "__proto__", "pay", "u1", { a: 2 })).toBe(true);
    for (let i = 0; i < 600; i++) recordFingerprint(ag, `x${i}`, "pay", `u${i}`, {});
    const record = ag.state.get(CONSUMED_APPROVALS_KEY) as Record<string, string>;
    expect(Object.keys(record)).toHaveLength(500);
    expect(Object.hasOwn(record, "x599")).toBe(true);
    expect(Object.hasOwn(record, "i1")).toBe(false);
  });
});
