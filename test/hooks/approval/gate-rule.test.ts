/**
 * gateRules (src/hooks/approval/gate-rule.ts), checked in one pass: every malformed list or rule is a UserError,
 * a rule is read once (what was checked is what the gate keeps), and the rules come back in order, unchanged.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { UserError } from "../../../src/errors.js";
import { gateRules } from "../../../src/hooks/approval/gate-rule.js";

const subject = () => ({ key: "k", label: "k" });

/** `list` with a hole at `i` (an empty slot, not `undefined`). */
function holed(list: unknown[], i: number): unknown[] {
  const out = [...list];
  delete out[i];
  return out;
}

describe("gateRules", () => {
  test.each([
    ["not an array", null, "thread"],
    ["an array-like", { length: 1, 0: "pay" }, "thread"],
    ["a hole first", holed(["x", "pay"], 0), "thread"],
    ["a hole last", holed(["pay", "x"], 1), "thread"],
    ["null", [null], "thread"],
    ["a number", [5], "thread"],
    ["an object without pattern", [{}], "thread"],
    ["an empty pattern", [""], "thread"],
    ["a pattern not a string", [{ pattern: 5 }], "thread"],
    ["a rule's bad remember", [{ pattern: "pay", remember: "forever" }], "thread"],
    ["a rule's null remember", [{ pattern: "pay", remember: null }], "thread"],
    ["the hook's bad remember, no rules", [], "forever"],
    ["the hook's null remember, no rules", [], null],
    ["the hook's bad remember", ["pay"], "Always"],
    ["a subject not a function", [{ pattern: "pay", subject: "to" }], "thread"],
    ["approvals null", [{ pattern: "pay", approvals: null }], "thread"],
    ["approvals a number", [{ pattern: "pay", approvals: 2 }], "thread"],
    ["approvals of 0", [{ pattern: "pay", approvals: { required: 0 } }], "thread"],
    ["approvals of 1.5", [{ pattern: "pay", approvals: { required: 1.5 } }], "thread"],
    ["eligible not a function", [{ pattern: "pay", approvals: { required: 2, eligible: 1 } }], "thread"],
    ["a brace", ["{pay,refund}"], "thread"],
    ["a class opened with \\^", ["[\\^a]pay"], "thread"],
    ["!( nested 5 deep", ["!(!(!(!(!(a)))))"], "thread"],
    ["a good rule, then a bad one", ["pay", { pattern: "x", subject: 1 }], "thread"],
  ])("%s is a UserError", (_, tools, remember) => {
    expect(() => gateRules(tools as never, remember as never)).toThrow(UserError);
  });

  test("a rule is read once: what was checked is what the gate keeps (a four-eyes rule stays four-eyes)", () => {
    const reads = { pattern: 0, remember: 0, subject: 0, approvals: 0 };
    const rule = {
      get pattern() {
        return reads.pattern++ < 3 ? "pay" : "{pay,refund}";
      },
      get remember() {
        return reads.remember++ ? "forever" : "thread";
      },
      get subject() {
        return reads.subject++ < 2 ? subject : "not a function";
      },
      get approvals() {
        return reads.approvals++ ? undefined : { required: 2 };
      },
    };
    const rules = gateRules([rule as never], "once");
    expect(rules).toEqual([{ pattern: "pay", remember: "thread", subject, approvals: { required: 2 } }]);
    expect(reads).toEqual({ pattern: 1, remember: 1, subject: 1, approvals: 1 });
  });

  test("a getter that throws fails the build of the gate", () => {
    const rule = {
      pattern: "pay",
      get subject(): never {
        throw new Error("boom");
      },
    };
    expect(() => gateRules([rule as never], "once")).toThrow("boom");
  });

  test("property: valid rules come back in order, unchanged, the hook's remember filling in", () => {
    const scope = fc.constantFrom("once" as const, "thread" as const, "always" as const);
    const pattern = fc.constantFrom("pay", "refund_*", "@(a|b)", "__proto__", "x?", "!(a)");
    const rule = fc.oneof(
      pattern,
      fc.record(
        { pattern, remember: scope, subject: fc.constant(subject), approvals: fc.constant({ required: 2 }) },
        { requiredKeys: ["pattern"] },
      ),
    );
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), scope, (tools, remember) => {
        const out = gateRules(tools, remember);
        expect(out).toEqual(
          tools.map((t) => {
            const r = typeof t === "string" ? { pattern: t } : t;
            return { pattern: r.pattern, remember: r.remember ?? remember, subject: r.subject, approvals: r.approvals };
          }),
        );
      }),
    );
  });
});
