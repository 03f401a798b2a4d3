/**
 * Which gate rule covers a tool: the first rule whose name or glob matches. One lookup for every
 * gate built from `GateRule`s (`InterruptHook`, the AI SDK's `kabooToolApproval`).
 *
 * @module
 */
import type { Rule } from "./gate-rule.js";
import { compileGlob, compileGlobNow, type NameMatcher } from "../glob.js";

/** A gate's checked rules, their patterns compiled on the first lookup. */
export class RuleIndex {
  readonly #rules: readonly Rule[];
  #matchers: Promise<NameMatcher[]> | undefined;
  #compiled: NameMatcher[] | undefined;

  /** @param rules - Checked rules (from `gateRules`), in order. */
  constructor(rules: readonly Rule[]) {
    this.#rules = rules;
  }

  /**
   * The rule covering a tool (first match wins), answered synchronously once the patterns are
   * compiled (a glob loads the glob engine on the first lookup).
   * @param toolName - The called tool's name.
   * @returns The rule, `undefined` when none covers the tool, or a promise of either.
   */
  ruleOf(toolName: string): Rule | undefined | Promise<Rule | undefined> {
    const find = (matchers: NameMatcher[]) => {
      for (let i = 0; i < matchers.length; i++) if ((matchers[i] as NameMatcher)(toolName)) return this.#rules[i];
      return undefined;
    };
    if (this.#compiled) return find(this.#compiled);
    // Exact names, and globs once the engine is loaded, compile at once: no promise for the first lookup.
    const now = this.#rules.map((r) => compileGlobNow(r.pattern));
    if (now.every((m) => m !== undefined)) return find((this.#compiled = now as NameMatcher[]));
    // A failed load of the glob engine fails this lookup and is tried again by the next one.
    this.#matchers ??= Promise.all(this.#rules.map((r) => compileGlob(r.pattern))).then(
      (m) => (this.#compiled = m),
      (error: unknown) => {
        this.#matchers = undefined;
        throw error;
      },
    );
    return this.#matchers.then(find);
  }
}
