import fc from "fast-check";
import { minimatch } from "minimatch";
import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import { gateRules } from "../../src/hooks/approval/gate-rule.js";
import { compileGlob, compileGlobNow, globProblem, isGlob } from "../../src/hooks/glob.js";

describe("tool-name globs", () => {
  // First in the file: the glob engine is not loaded yet.
  test("compileGlobNow: exact names at once, globs once the engine is loaded, matching as compileGlob", async () => {
    expect(compileGlobNow("transfer")?.("transfer")).toBe(true);
    expect(compileGlobNow("merchant___*")).toBeUndefined();
    // Compiled once per pattern: a gate built per request reuses the matcher.
    expect(compileGlobNow("transfer")).toBe(compileGlobNow("transfer"));
    await compileGlob("merchant___*");
    const glob = compileGlobNow("merchant___*");
    expect([glob?.("merchant___pay"), glob?.("other___pay"), compileGlobNow("!x")?.("y")]).toEqual([
      true,
      false,
      false,
    ]);
    // Asked again (its answer for a name is kept): the same answers.
    expect([glob?.("merchant___pay"), glob?.("other___pay")]).toEqual([true, false]);
  });
  test("exact names match only themselves; globs match names", async () => {
    expect(isGlob("transfer")).toBe(false);
    expect(isGlob("merchant___*")).toBe(true);
    const exact = await compileGlob("transfer");
    expect([exact("transfer"), exact("transfers"), exact("Transfer")]).toEqual([true, false, false]);
    const glob = await compileGlob("merchant___*");
    expect([glob("merchant___pay"), glob("merchant___"), glob("other___pay")]).toEqual([true, true, false]);
    const either = await compileGlob("@(pay|refund)_*");
    expect([either("pay_x"), either("refund_y"), either("charge_z")]).toEqual([true, true, false]);
    const klass = await compileGlob("get_[!x]?");
    expect([klass("get_ab"), klass("get_xb"), klass("get_a")]).toEqual([true, false, false]);
  });
  test("braces are refused, not taken literally: a rule never silently stops covering what it named", async () => {
    await expect(compileGlob("{pay,refund}_*")).rejects.toThrow(UserError);
    expect(() => compileGlobNow("pay_{x}")).toThrow(/@\(a\|b\)/);
    // When the gate is built, not at its first call.
    expect(() => gateRules(["transfer", "{pay,refund}_*"], "once")).toThrow(
      /gate rule "\{pay,refund\}_\*" has a brace/,
    );
  });
  test("* matches every character, as fnmatch: a gate on * covers every tool, a leading dot and a slash included", async () => {
    const all = await compileGlob("*");
    expect([all("transfer"), all(".hidden"), all("mcp/files/read")]).toEqual([true, true, true]);
    const under = await compileGlob("mcp/*");
    expect([under("mcp/read"), under("mcp/files/read"), under("other/read")]).toEqual([true, true, false]);
  });
  test("property: on names without a slash, a glob matches as minimatch does (dot on, braces off)", async () => {
    // Patterns drawn from glob syntax and a small alphabet, names from the same alphabet: many matches and misses.
    const part = fc.constantFrom(
      "a",
      "b",
      "_",
      ".",
      "*",
      "?",
      "[ab]",
      "[!a]",
      "@(a|b)",
      "?(a)",
      "*(b)",
      "+(a|_)",
      "!(b)",
    );
    const pattern = fc.array(part, { minLength: 1, maxLength: 6 }).map((p) => p.join(""));
    // "." and ".." aside: minimatch never lets a wildcard match a path's own directories, a tool name is
    // no path (glob.attacks.test.ts).
    const name = fc.stringMatching(/^[ab_.]{1,8}$/).filter((n) => n !== "." && n !== "..");
    await fc.assert(
      fc.asyncProperty(pattern, name, async (p, n) => {
        const ours = (await compileGlob(p))(n);
        const theirs = n === p || minimatch(n, p, { dot: true, nobrace: true, nocomment: true, nonegate: true });
        expect(ours, `${JSON.stringify(p)} on ${JSON.stringify(n)}`).toBe(theirs);
      }),
      { numRuns: 2000 },
    );
  });
  test("property: no pattern makes matching backtrack (a long name is answered in linear time)", async () => {
    const slow = await compileGlob("a*a*a*a*a*a*a*a*a*a*a*b");
    const t0 = performance.now();
    expect(slow(`${"a".repeat(5000)}c`)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
  test("negation and comments are off: a pattern only ever selects names", async () => {
    const neg = await compileGlob("!transfer");
    expect(neg("balance")).toBe(false);
    expect(neg("!transfer")).toBe(true);
    const comment = await compileGlob("#x");
    expect(comment("#x")).toBe(true);
  });
  test("property: a name always matches itself as a pattern", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 20 }).filter((n) => globProblem(n) === undefined),
        async (name) => (await compileGlob(name))(name),
      ),
    );
  });
});
