import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  APPROVAL_SCOPES,
  clampScope,
  decisionNote,
  jsonHash,
  parseTime,
  readAnswer,
  scopesUpTo,
} from "../../../src/hooks/approval/request.js";
import { canonicalJson } from "../../../src/agent/shared/canonical-json.js";

describe("readAnswer", () => {
  test.each([
    [true, { decision: "approved", scope: "once" }],
    [false, { decision: "denied", scope: "once" }],
    [
      { approved: true, scope: "thread" },
      { decision: "approved", scope: "thread" },
    ],
    [
      { approved: true, status: "resolved", editedArgs: { a: 1 } },
      { decision: "approved", scope: "once", editedArgs: { a: 1 } },
    ],
    [
      { approved: true, tool_input: { a: 2 } },
      { decision: "approved", scope: "once", editedArgs: { a: 2 } },
    ],
    [
      { status: "cancelled", approved: true },
      { decision: "skipped", scope: "once" },
    ],
    [{ status: "approved" }, { decision: "approved", scope: "once" }],
    [{}, { decision: "denied", scope: "once" }],
  ])("%j → %j", (value, expected) => {
    expect(readAnswer(value)).toEqual(expected);
  });

  test("anything unreadable is a denial with the reason, never an approval", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const a = readAnswer(value);
        const explicit =
          value === true ||
          (typeof value === "object" &&
            value !== null &&
            !Array.isArray(value) &&
            ((value as { approved?: unknown }).approved === true ||
              (value as { status?: unknown }).status === "approved"));
        if (a.decision === "approved") expect(explicit).toBe(true);
        if (a.invalid) expect(a.decision).toBe("denied");
      }),
    );
    expect(readAnswer({ approved: true, scope: "forever" }).invalid).toBeTruthy();
    expect(readAnswer({ approved: true, editedArgs: [1] }).decision).toBe("denied");
  });
});

describe("scopes", () => {
  test("offered scopes stop at the rule's widest, and at once when the host cannot remember", () => {
    expect(scopesUpTo("always", true)).toEqual(["once", "thread", "always"]);
    expect(scopesUpTo("thread", true)).toEqual(["once", "thread"]);
    expect(scopesUpTo("always", false)).toEqual(["once"]);
  });
  test("a chosen scope is clamped to the widest offered scope not wider than it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...APPROVAL_SCOPES),
        fc.constantFrom(...APPROVAL_SCOPES),
        fc.boolean(),
        (chosen, widest, host) => {
          const offered = scopesUpTo(widest, host);
          const s = clampScope(chosen, offered);
          expect(offered).toContain(s);
          expect(APPROVAL_SCOPES.indexOf(s)).toBeLessThanOrEqual(APPROVAL_SCOPES.indexOf(chosen));
        },
      ),
    );
  });
});

describe("helpers", () => {
  test("canonical JSON and its hash ignore key order, and differ for different values", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(jsonHash({ a: 1, b: 2 })).toBe(jsonHash({ b: 2, a: 1 }));
    expect(jsonHash({ a: 1 })).not.toBe(jsonHash({ a: 2 }));
  });
  test("parseTime reads ISO dates and nothing else", () => {
    expect(parseTime("2026-01-01T00:00:00Z")).toBe(Date.UTC(2026, 0, 1));
    expect(parseTime("soon")).toBeUndefined();
    expect(parseTime(5)).toBeUndefined();
  });
  test("notes name the tool and the outcome", () => {
    for (const d of ["denied", "skipped", "expired", "approved"] as const)
      expect(decisionNote(d, "pay")).toMatch(/"pay"/);
    expect(decisionNote("expired", "pay")).toMatch(/expired/);
  });
});
