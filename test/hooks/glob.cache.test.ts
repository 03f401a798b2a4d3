/**
 * checkGlob skips a pattern already compiled: no refused pattern ever gets into the compiled cache, whichever
 * way it is compiled, however often the cache is cleared (past 256 patterns) and refilled.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import { gateRules } from "../../src/hooks/approval/gate-rule.js";
import { checkGlob, compileGlob, compileGlobNow, globProblem } from "../../src/hooks/glob.js";

const refused = ["{pay,refund}", "pay}", "[\\^a]x", "!(!(!(!(!(a)))))", "a{", "@(a|{b})"];

async function refusedEverywhere(pattern: string): Promise<void> {
  expect(globProblem(pattern)).toEqual(expect.any(String));
  expect(() => checkGlob(pattern, "p")).toThrow(UserError);
  expect(() => compileGlobNow(pattern)).toThrow(UserError);
  await expect(compileGlob(pattern)).rejects.toThrow(UserError);
  expect(() => gateRules([pattern], "once")).toThrow(UserError);
  expect(() => checkGlob(pattern, "p")).toThrow(UserError);
}

describe("the compiled-pattern cache and checkGlob", () => {
  test("a refused pattern stays refused before, between and after the cache is cleared and refilled", async () => {
    await compileGlob("warm_*");
    for (const p of refused) await refusedEverywhere(p);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 300; i++) {
        const p = i % 2 ? `tool_${round}_${i}_*` : `exact_${round}_${i}`;
        expect(compileGlobNow(p)).toBeTypeOf("function");
        checkGlob(p, "p");
      }
      for (const p of refused) await refusedEverywhere(p);
    }
  });

  test("property: checkGlob throws exactly when globProblem finds one, whatever was compiled before", async () => {
    await compileGlob("warm_*");
    const chars = fc.constantFrom("a", "*", "?", "[", "]", "(", ")", "!", "@", "|", "{", "}", "\\", "^", "+");
    const pattern = fc.array(chars, { minLength: 1, maxLength: 14 }).map((c) => c.join(""));
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 8 }), pattern, (before, p) => {
        for (const b of before)
          try {
            compileGlobNow(b);
          } catch {}
        const problem = globProblem(p);
        if (problem === undefined) expect(() => checkGlob(p, "p")).not.toThrow();
        else expect(() => checkGlob(p, "p")).toThrow(UserError);
      }),
      { numRuns: 2000 },
    );
  });
});
