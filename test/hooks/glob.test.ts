import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileGlob, compileGlobNow, isGlob } from "../../src/hooks/glob.js";

describe("tool-name globs", () => {
  // First in the file: minimatch is not loaded yet.
  test("compileGlobNow: exact names at once, globs once minimatch is loaded, matching as compileGlob", async () => {
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
  test("exact names match only themselves; globs match by minimatch rules", async () => {
    expect(isGlob("transfer")).toBe(false);
    expect(isGlob("merchant___*")).toBe(true);
    const exact = await compileGlob("transfer");
    expect([exact("transfer"), exact("transfers"), exact("Transfer")]).toEqual([true, false, false]);
    const glob = await compileGlob("merchant___*");
    expect([glob("merchant___pay"), glob("merchant___"), glob("other___pay")]).toEqual([true, true, false]);
    const braces = await compileGlob("{pay,refund}_*");
    expect([braces("pay_x"), braces("refund_y"), braces("charge_z")]).toEqual([true, true, false]);
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
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 20 }), async (name) => (await compileGlob(name))(name)),
    );
  });
});
