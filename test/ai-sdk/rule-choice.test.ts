/**
 * The AI SDK adapter and InterruptHook choose the same gate rule for a tool (first match wins), and an
 * AI SDK tool with a name an agent tool could not have (`..`) is still covered by a gate on `*`.
 */
import { jsonSchema, tool, type ModelMessage } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { kabooToolApproval } from "../../src/ai-sdk/index.js";
import { gateRules, type GateRule } from "../../src/hooks/approval/gate-rule.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { approvalRequests, bank, request, scriptedModel } from "./fixtures.js";

const go: ModelMessage[] = [{ role: "user", content: "go" }];

describe("gate rules chosen alike by kabooToolApproval and InterruptHook", () => {
  // Guards the fail-open end to end: the engine never matched ".." with a wildcard, so this tool ran unasked.
  it('asks before a tool named ".." runs under a gate on "*"', async () => {
    let runs = 0;
    const tools = {
      "..": tool({
        inputSchema: jsonSchema<Record<string, never>>({ type: "object", properties: {} }),
        execute: async () => ++runs,
      }),
    };
    const model = scriptedModel([{ toolName: "..", input: {} }]);
    const ledger = new MemoryExecutionLedger();
    const r = await request({ model, tools, messages: go, ledger, approval: { rules: ["*"], threadId: "t1" } });
    expect(approvalRequests(r.response.messages)).toHaveLength(1);
    expect(runs).toBe(0);
  });

  // Guards: both gates pick the same rule (or none) for every name; a rule's subject function, called by
  // the AI SDK adapter for the rule it chose, says which (returning null: nothing is asked or stored).
  it("property: the same rules and tool name give the same rule in both gates", async () => {
    const part = fc.constantFrom("a", "b", "/", ".", "*", "?", "[ab]", "[!a]", "@(a|b)", "!(b)", "+(a|/)", "\uE000");
    const pattern = fc.array(part, { minLength: 1, maxLength: 4 }).map((p) => p.join(""));
    const name = fc.oneof(fc.stringMatching(/^[ab/.\uE000]{1,6}$/), fc.constantFrom(".", "..", "A", "a\u0301"));
    const ledger = new MemoryExecutionLedger();
    let covered = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(pattern, { minLength: 1, maxLength: 5 }), name, async (patterns, toolName) => {
        let chosen: number | undefined;
        const rules: GateRule[] = patterns.map((p, i) => ({
          pattern: p,
          subject: () => {
            chosen = i;
            return null;
          },
        }));
        const hookRule = await new InterruptHook(rules).ruleFor(toolName);
        const approve = kabooToolApproval({ rules, ledger, threadId: "t1" });
        const status = await approve({ toolCall: { toolName, toolCallId: "c1", input: {} }, tools: {}, messages: [] });
        expect(status).toBe("not-applicable");
        const hookIndex = hookRule ? rules.findIndex((r) => r.subject === hookRule.subject) : undefined;
        expect(chosen, `${JSON.stringify(patterns)} on ${JSON.stringify(toolName)}`).toBe(hookIndex);
        // First match wins: no earlier rule matches.
        if (hookIndex !== undefined) covered++;
        if (hookIndex !== undefined)
          for (const earlier of patterns.slice(0, hookIndex))
            expect(await new InterruptHook([earlier]).ruleFor(toolName)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
    // Many names are covered (and by a later rule), so the choice is really compared.
    expect(covered).toBeGreaterThan(100);
  });

  // Guards: a rule lookup that throws (here: a pattern that reads "transfer" while checked and has a brace
  // when kept) fails the request, and the tool does not run (a throw taken as "not-applicable" would run it).
  it("a rule lookup that throws runs nothing", async () => {
    let reads = 0;
    gateRules(
      [
        {
          get pattern() {
            reads++;
            return "transfer";
          },
        },
      ],
      "once",
    );
    let n = 0;
    const rule = {
      get pattern() {
        return ++n === reads ? "t{x}" : "transfer";
      },
    };
    const { runs, tools } = bank();
    const model = scriptedModel([{ toolName: "transfer", input: { to: "bob", cents: 5 } }]);
    const ledger = new MemoryExecutionLedger();
    const approval = { rules: [rule], threadId: "t1" };
    await expect(request({ model, tools, messages: go, ledger, approval })).rejects.toThrow(/brace/);
    expect(runs.transfer).toBe(0);
  });
});
