import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  formatInterruptId,
  innerInterruptId,
  interruptCallId,
  isCallInterrupt,
  isNodeInterrupt,
  nodeHookInterruptId,
  nodeInterruptId,
  parseInterruptId,
  repeatedInterruptName,
  toolHookInterruptId,
  toolInterruptId,
  type InterruptIdParts,
} from "../../src/agent/interrupts/interrupt-id.js";

// Owners and names with the characters that matter (`:`, `%`, `#`) far more often than chance gives them.
const part = fc.stringMatching(/^[a-z0-9:%#_\-.3A52]{0,12}$/);
const anyText = fc.oneof(part, fc.string());

const leaf: fc.Arbitrary<InterruptIdParts> = fc.oneof(
  fc.record({ kind: fc.constant("toolHook" as const), toolUseId: anyText, name: anyText }),
  fc.record({ kind: fc.constant("tool" as const), toolUseId: anyText, name: anyText }),
  fc.record({ kind: fc.constant("nodeHook" as const), nodeId: anyText, name: anyText }),
);
// Nodes nest: a node's inner id is itself any id, down a few levels.
const parts: fc.Arbitrary<InterruptIdParts> = fc.letrec<{ id: InterruptIdParts }>((tie) => ({
  id: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ kind: fc.constant("node" as const), nodeId: anyText, innerId: tie("id").map(formatInterruptId) }),
  ),
})).id;

describe("interrupt ids", () => {
  test("every id form reads back as what built it, `:` and `%` in ids and names included", () => {
    fc.assert(
      fc.property(parts, (p) => {
        expect(parseInterruptId(formatInterruptId(p))).toEqual(p);
      }),
      { numRuns: 2000 },
    );
  });

  test("two different parts never give the same id", () => {
    fc.assert(
      fc.property(parts, parts, (a, b) => {
        if (formatInterruptId(a) === formatInterruptId(b)) expect(a).toEqual(b);
      }),
      { numRuns: 2000 },
    );
  });

  test("an id belongs to its own call only, even when one call id is a prefix of another", () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, (call, other, name) => {
        const id = toolHookInterruptId(call, name);
        expect(interruptCallId(id)).toBe(call);
        expect(isCallInterrupt(id, call)).toBe(true);
        if (other !== call) expect(isCallInterrupt(id, other)).toBe(false);
        // A `:` in the call id must not make `a:b`'s question look like one of call `a`.
        expect(isCallInterrupt(toolInterruptId(`${call}:${other}`, name), call)).toBe(false);
      }),
    );
  });

  test("ids of calls without `:` or `%` are spelled as before (snapshots of earlier versions resume)", () => {
    expect(toolHookInterruptId("call_1", "bank:kaboo_approval")).toBe("hook:beforeToolCall:call_1:bank:kaboo_approval");
    expect(toolInterruptId("toolu_9", "confirm")).toBe("tool:toolu_9:confirm");
    expect(nodeHookInterruptId("review", "gate")).toBe("hook:beforeNodeCall:review:gate");
    expect(nodeInterruptId("research", "tool:t1:kaboo_approval")).toBe("node:research:tool:t1:kaboo_approval");
    expect(parseInterruptId("hook:beforeToolCall:call_1:bank:kaboo_approval")).toEqual({
      kind: "toolHook",
      toolUseId: "call_1",
      name: "bank:kaboo_approval",
    });
  });

  test("a call or node id with `:` is escaped, and reads back", () => {
    expect(toolInterruptId("a:b", "x")).toBe("tool:a%3Ab:x");
    expect(nodeHookInterruptId("50%", "g")).toBe("hook:beforeNodeCall:50%25:g");
    expect(interruptCallId("tool:a%3Ab:x")).toBe("a:b");
  });

  test("node membership and inner ids", () => {
    const inner = toolHookInterruptId("c1", "gate");
    const outer = nodeInterruptId("a:b", inner);
    expect(innerInterruptId(outer, "a:b")).toBe(inner);
    expect(innerInterruptId(outer, "a")).toBeUndefined();
    expect(isNodeInterrupt(outer, "a:b")).toBe(true);
    expect(isNodeInterrupt(outer, "a:b", ["nodeHook"])).toBe(false);
    expect(isNodeInterrupt(nodeHookInterruptId("a:b", "gate"), "a:b")).toBe(true);
    expect(interruptCallId(outer)).toBeUndefined();
  });

  test.each([
    [""],
    ["tool"],
    ["tool:"],
    ["tool:abc"],
    ["hook:beforeToolCall"],
    ["node:x"],
    ["tool:a%zz:b"],
    ["tool:a%:b"],
    ["other:a:b"],
    ["kaboo_approval"],
  ])("%j is not an interrupt id of this package", (id) => {
    expect(parseInterruptId(id)).toBeUndefined();
    expect(interruptCallId(id)).toBeUndefined();
  });

  test("repeated questions of one call are numbered from the second", () => {
    expect(repeatedInterruptName("approve", 1)).toBe("approve");
    expect(repeatedInterruptName("approve", 3)).toBe("approve#3");
  });
});
