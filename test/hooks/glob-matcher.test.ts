/**
 * The matcher module a glob loads (hooks/glob-matcher.ts), asked directly: how a name goes through the engine
 * (a slash, the stand-in for it, the names `.` and `..`) and that its kept answers never change one.
 */
import { describe, expect, test } from "vitest";
import { globMatcher } from "../../src/hooks/glob-matcher.js";

const PUA = "\uE000";

describe("globMatcher", () => {
  test("a slash is one more character: * and ? cross it, a literal / matches only a slash", () => {
    const star = globMatcher("mcp/*");
    expect([star("mcp/read"), star("mcp/files/read"), star("mcp_read"), star(`mcp${PUA}read`)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(globMatcher("a?b")("a/b")).toBe(true);
  });

  test("a pattern holding the stand-in char matches it literally, never as a slash", () => {
    const m = globMatcher(`x${PUA}*`);
    expect([m(`x${PUA}y`), m("x/y"), m(`x${PUA}${PUA}/`)]).toEqual([true, false, true]);
  });

  test("the names . and .. are matched like any other name", () => {
    expect([globMatcher("*")("."), globMatcher("*")(".."), globMatcher("?")(".."), globMatcher("??")("..")]).toEqual([
      true,
      true,
      false,
      true,
    ]);
    expect([globMatcher("!(x)")("."), globMatcher("@(a|b)")(".")]).toEqual([true, false]);
  });

  test("answers asked again, past the kept-answer bound and for names over 1 KiB, stay the same", () => {
    const m = globMatcher("pay_*");
    const names = Array.from({ length: 600 }, (_, i) => (i % 2 ? `pay_${i}` : `x_${i}`));
    const long = `pay_${"z".repeat(2000)}`;
    const first = [...names.map(m), m(long), m(`x${long}`)];
    expect(first.filter(Boolean)).toHaveLength(301);
    expect([...names.map(m), m(long), m(`x${long}`)]).toEqual(first);
  });

  test("a name equal to the pattern matches it, even where the pattern's glob would not", () => {
    expect(globMatcher("[")("[")).toBe(true);
    expect(globMatcher("a\\")("a\\")).toBe(true);
  });
});
