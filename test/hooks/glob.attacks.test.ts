/**
 * An attacker's view of tool-name globs (glob.ts) and the gates built on them: a tool call must never
 * escape a rule that covers it, a name the model picks must never hang or throw in a gate, and what a
 * gate caches must never change its answers.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import { gateRules } from "../../src/hooks/approval/gate-rule.js";
import { compileGlob } from "../../src/hooks/glob.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import * as z from "zod/v4";
import { SHARED_STATE_KEY } from "../../src/agent/run-context.js";
import { STATE_EFFECTS_KEY, StateEffectsHook, stateDeltas } from "../../src/hooks/state-effects.js";
import { Agent, ScriptedModel, tool } from "../../src/index.js";
import { capturingLogger } from "../fixtures/logger.js";
import { bank, callsThenAnswers, newAgent } from "./approval-fixtures.js";

const PUA = "\uE000";

/** An array of `length` with only the entries given: the others are holes. */
function holed(length: number, entries: Record<number, string>): string[] {
  return Object.assign(new Array<string>(length), entries);
}

/**
 * A rule whose pattern reads "transfer" while the gate checks it and `bad` when the gate keeps it: how
 * a rule lookup is made to throw with real parts (the engine itself never throws, see the property).
 */
function ruleTurningInto(bad: unknown): { pattern: string } {
  let reads = 0;
  const probe = {
    get pattern() {
      reads++;
      return "transfer";
    },
  };
  new InterruptHook([probe]);
  const last = reads;
  let n = 0;
  return {
    get pattern() {
      return (++n === last ? bad : "transfer") as string;
    },
  };
}

describe("tool-name globs under attack", () => {
  // Guards: the engine never lets a wildcard match "." or ".." (a path's own directories), so a tool so
  // named escaped a gate on "*" although "a gate on * covers every tool". Failed before the fix.
  test('"." and ".." are names like any other: * and !(…) cover them, ? and ?? match them', async () => {
    const answers = async (pattern: string) => {
      const m = await compileGlob(pattern);
      return [m("."), m("..")];
    };
    expect(await answers("*")).toEqual([true, true]);
    expect(await answers("!(transfer)")).toEqual([true, true]);
    expect(await answers("?")).toEqual([true, false]);
    expect(await answers("??")).toEqual([false, true]);
    expect(await answers(".*")).toEqual([true, true]);
    expect(await answers("[.]")).toEqual([true, false]);
    expect(await answers("*a")).toEqual([false, false]);
    expect(await answers("@(x|y)")).toEqual([false, false]);
    expect((await new InterruptHook(["*"]).ruleFor("."))?.pattern).toBe("*");
    expect((await new InterruptHook(["*"]).ruleFor(".."))?.pattern).toBe("*");
  });

  // Guards: `/` is matched through a stand-in char; a name or pattern holding that char must not read as
  // holding a slash (U+E000 in a name matched "a/*"; "!(safe/*)" let "safe<U+E000>wipe" through). Failed before the fix.
  test("a private-use char in a name or a pattern never stands for a slash", async () => {
    const under = await compileGlob("mcp/*");
    expect([under("mcp/read"), under(`mcp${PUA}read`)]).toEqual([true, false]);
    const notSafe = await compileGlob("!(safe/*)");
    expect([notSafe("safe/read"), notSafe(`safe${PUA}wipe`), notSafe("wipe")]).toEqual([false, true, true]);
    const literal = await compileGlob(`a${PUA}*`);
    expect([literal(`a${PUA}b`), literal("a/b")]).toEqual([true, false]);
    const klass = await compileGlob("x[!/]");
    expect([klass("x/"), klass(`x${PUA}`), klass(`x${PUA}\uE001`)]).toEqual([false, true, false]);
    // A name holding every stand-in candidate up to where the search lands still answers right, and fast.
    const crowded = `mcp/${Array.from({ length: 6400 }, (_, i) => String.fromCharCode(0xe000 + i)).join("")}`;
    const t0 = performance.now();
    expect([under(crowded), notSafe(crowded.replace("mcp", "safe"))]).toEqual([true, false]);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  // Guards: a gate is case-sensitive and does not normalize unicode, consistently (documented); a look-alike
  // name is a different tool, which the agent does not find either.
  test("case and unicode form: a rule covers exactly the names it spells", async () => {
    const hook = new InterruptHook(["transfer", "café_*"]);
    expect(await hook.ruleFor("Transfer")).toBeUndefined();
    expect((await hook.ruleFor("café_pay"))?.pattern).toBe("café_*");
    expect(await hook.ruleFor("cafe\u0301_pay")).toBeUndefined();
  });

  // Guards: no pattern a gate accepts throws when compiled or when it meets any name (a throw in the
  // hook would fail the whole batch, not just this call), lone surrogates, slashes and U+E000 included.
  test("property: no accepted pattern throws, on any name", async () => {
    const syntax = fc.constantFrom(
      "[",
      "]",
      "\\",
      "^",
      "!",
      "-",
      "a",
      "/",
      "(",
      ")",
      "|",
      "@",
      "*",
      "+",
      "?",
      ".",
      ":",
    );
    const odd = fc.constantFrom("[:alpha:]", "\uD800", "\uDC00", PUA, "é", "#");
    const pattern = fc
      .array(fc.oneof(syntax, odd), { minLength: 1, maxLength: 12 })
      .map((p) => p.join(""))
      .filter((p) => {
        try {
          gateRules([p], "once");
          return true;
        } catch {
          return false;
        }
      });
    const name = fc.oneof(fc.string({ unit: "binary", maxLength: 10 }), fc.constantFrom(".", "..", "/", PUA, "a/b"));
    await fc.assert(
      fc.asyncProperty(pattern, name, async (p, n) => {
        expect(typeof (await compileGlob(p))(n)).toBe("boolean");
      }),
      { numRuns: 3000 },
    );
  });

  // Guards: a matcher forgets its answers past 256 names and all matchers past 256 patterns; neither may
  // change an answer (a poisoned or stale entry would let a call through).
  test("the caches are bounded and forgetting them changes no answer", async () => {
    const pattern = "@(pay|refund)_*";
    const m = await compileGlob(pattern);
    const names = Array.from({ length: 700 }, (_, i) =>
      i % 3 === 0 ? `pay_${i}` : i % 3 === 1 ? `x_${i}` : `refund_${i}`,
    );
    const first = names.map(m);
    expect(first.filter(Boolean)).toHaveLength(467);
    expect(names.map(m)).toEqual(first);
    for (let i = 0; i < 300; i++) await compileGlob(`other_${i}_*`);
    const again = await compileGlob(pattern);
    expect(names.map(again)).toEqual(first);
    // A name equal to another pattern answers for this pattern, not that one.
    expect([m("other_1_*"), (await compileGlob("other_1_*"))("other_1_*")]).toEqual([false, true]);
  });

  // Guards: the gate's rules refuse what is not a pattern, and take "!" and "#" literally (negation and
  // comments would let a rule select every tool but one, or none).
  test("non-strings, empty patterns and braces are refused; ! and # are literal", async () => {
    for (const bad of [
      [5],
      [null],
      [undefined],
      "transfer",
      [{ pattern: 5 }],
      [{ pattern: new String("x") }],
      [""],
      [{ pattern: "" }],
      ["a{b"],
      // A hole in the list (threw a TypeError before).
      holed(2, { 1: "transfer" }),
    ])
      expect(() => new InterruptHook(bad as never)).toThrow(UserError);
    const hook = new InterruptHook(["!transfer", "#balance"]);
    expect(await hook.ruleFor("transfer")).toBeUndefined();
    expect(await hook.ruleFor("balance")).toBeUndefined();
    expect((await hook.ruleFor("!transfer"))?.pattern).toBe("!transfer");
    expect((await hook.ruleFor("#balance"))?.pattern).toBe("#balance");
  });

  // Guards: the engine builds a class whose first member is an escaped ^ as the complement ([\^a] matched
  // every char but "a", so a rule on it let a-tools through); such a pattern is refused, like a brace.
  test("a class opened with an escaped ^ is refused; [a^] says it", async () => {
    for (const bad of ["[\\^a]_*", "x[\\^]", "[\\^-z]", "\\\\[\\^a]"]) {
      expect(() => new InterruptHook([bad]), bad).toThrow(UserError);
      expect(() => new InterruptHook([bad]), bad).toThrow(/\[a\^\]/);
    }
    for (const ok of ["\\[\\^a]", "[a^]", "[^a]", "[!\\^]", "^*"])
      expect(() => new InterruptHook([ok]), ok).not.toThrow();
    const caret = await compileGlob("[a^]_*");
    expect([caret("^_x"), caret("a_x"), caret("b_x")]).toEqual([true, true, false]);
    const notCaret = await compileGlob("[!\\^]_*");
    expect([notCaret("^_x"), notCaret("b_x")]).toEqual([false, true]);
  });

  // Guards: the engine's time grows exponentially with how deep !(…) nests (9 deep: 90 ms on a 200-char name, 16
  // deep: minutes on 1,000), and the name may be the model's: such a pattern is refused when the gate is built.
  test("!(…) nested more than 4 deep is refused; 4 deep is taken", async () => {
    const nest = (d: number) => Array.from({ length: d }).reduce<string>((p) => `!(?*${p})`, "");
    expect(() => new InterruptHook([nest(5)])).toThrow(/nests !\(…\) 5 deep/);
    expect(() => gateRules([`@(a|${nest(5)})`], "once")).toThrow(UserError);
    expect(() => new InterruptHook([nest(4), "@(a|@(b|@(c|@(d|@(e|f)))))", "\\!(x)"])).not.toThrow();
    // Escaped and closed groups do not count.
    expect(() => new InterruptHook(["!(a)!(b)!(c)!(d)!(e)", "\\!(\\!(\\!(\\!(\\!(x)))))"])).not.toThrow();
    // An escaped backslash before a real !( escapes nothing: that one counts.
    expect(() => new InterruptHook([`\\\\${nest(5)}`])).toThrow(UserError);
  });

  // Guards: a name the model picks cannot hang a gate whose patterns are ordinary (the README's forms and
  // a backtracking trap), even 100,000 chars of distinct characters.
  test("a long model-chosen name is answered at once by ordinary patterns", async () => {
    const patterns = ["merchant___*", "@(pay|refund)_*", "*", "!(read_*)", "get_[!x]?*", "a*a*a*a*a*a*a*a*b", "*!(*z)"];
    const hook = new InterruptHook(patterns);
    const long = Array.from({ length: 100_000 }, (_, i) => String.fromCodePoint(0x4e00 + (i % 20_000))).join("");
    const t0 = performance.now();
    expect((await hook.ruleFor(long))?.pattern).toBe("*");
    for (const p of patterns) (await compileGlob(p))(`${long}z`);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  // Guards: a rule lookup that throws fails the call closed: the tool never runs, on the first call or a
  // later one (a throw swallowed as "no rule covers it" would run it unasked).
  // The gate now reads each rule's pattern once (gate-rule.test), so the pattern it keeps is the one it checked:
  // such a rule is refused when the gate is built; were it read again, its lookup must still run nothing.
  test("a rule lookup that throws runs nothing", async () => {
    for (const bad of ["t{x}", undefined, 5]) {
      const b = bank();
      let hook: InterruptHook;
      try {
        hook = new InterruptHook([ruleTurningInto(bad)]);
      } catch (error) {
        expect(error).toBeInstanceOf(UserError);
        continue;
      }
      await expect(hook.ruleFor("transfer")).rejects.toThrow();
      for (let i = 0; i < 2; i++) {
        const agent = newAgent(b, [hook], callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]));
        const outcome = await agent.invoke("pay bob").then(
          (r) => r.stopReason,
          (e: unknown) => (e instanceof Error ? "threw" : "?"),
        );
        expect(outcome).toBe("threw");
      }
      expect(b.started).toEqual([]);
    }
  });

  // Guards: a state effect whose tool pattern has a brace is skipped as malformed (said in a warning); it
  // neither breaks the run (a throw in the hook) nor stops the effects beside it, and @(…) is the way.
  test("a state effect with a brace or a class opened with \\^ is skipped, the others apply", async () => {
    const add = tool({ name: "cart_add", description: "adds", inputSchema: z.object({}), callback: () => "ok" });
    const logger = capturingLogger();
    const mark = (key: string) => () => ({ [key]: true });
    const invocationState: Record<string, unknown> = {
      [STATE_EFFECTS_KEY]: [
        { tool: "cart_{add,remove}", map: mark("brace") },
        { tool: "[\\^x]art_*", map: mark("caret") },
        { tool: "cart_@(add|remove)", map: mark("extglob") },
      ],
      [SHARED_STATE_KEY]: {},
    };
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "cart_add", input: {} }] }, { text: "done" }] });
    const agent = new Agent({ name: "a", model, tools: [add], hooks: [new StateEffectsHook({ logger })] });
    const r = await agent.invoke("go", { invocationState });
    expect(r.stopReason).toBe("endTurn");
    expect(invocationState[SHARED_STATE_KEY]).toEqual({ extglob: true });
    expect(stateDeltas(invocationState)).toHaveLength(1);
    expect(logger.warns.join("\n")).toMatch(/skipped 2 malformed state effect/);
  });
});
