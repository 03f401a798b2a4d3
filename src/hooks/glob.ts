/**
 * Tool-name globs for the hooks: minimatch's own matching engine (`@isaacs/nonrecursive-glob-match`,
 * what minimatch 11 applies to each part of a path), loaded only when a pattern needs it.
 *
 * Why the engine and not minimatch (the design card names minimatch): a tool name is one name, not a
 * path. Minimatch splits paths on `/`, expands braces and walks `**` across directories; none of that
 * applies to a name, and it was 13 KiB of the 102 a page shipped, against under 5 for the engine. The
 * engine is the same code, with the same guarantee: it walks a name once (a Thompson NFA), so no
 * pattern backtracks (ReDoS). It also reads no environment variable, so Deno needs no `--allow-env`.
 *
 * What a pattern means, as the Python original's `fnmatch`: `*` any characters (a leading `.` and a
 * `/` included: a gate on `*` covers every tool), `?` one, `[…]` a class (`[!…]` its complement),
 * and minimatch's extglobs (`@(pay|refund)_*`). Braces do not expand: a pattern with `{` or `}` is
 * refused (`gateRules` says so when the gate is built), rather than silently matching nothing; so is a
 * class opened with an escaped `^` (`[\^a]`), which the engine builds as its complement.
 *
 * @module
 */
import { UserError } from "../errors.js";
import { lazy } from "../lazy.js";

/** A compiled pattern. */
export type NameMatcher = (name: string) => boolean;

// Characters that give a pattern glob meaning (extglobs included).
const MAGIC = /[*?[\]()!+@]/;

// The engine and how a name goes through it, loaded with the first glob. A failed load (a dropped
// connection in a page) is tried again by the next lookup.
const loadEngine = lazy(() => import("./glob-matcher.js"));
let engine: typeof import("./glob-matcher.js") | undefined;
/** Matchers compiled so far, by pattern (a gate built per request compiles the same patterns again). */
const compiled = new Map<string, NameMatcher>();

/** Whether the pattern needs glob matching (otherwise it is an exact name). */
export function isGlob(pattern: string): boolean {
  return MAGIC.test(pattern);
}

/**
 * Why a pattern would not mean what it reads as, if it would not: a brace, which minimatch expanded
 * (`{pay,refund}_*`) and tool-name globs do not (write `@(pay|refund)_*`), or a class opened with an
 * escaped `^` (`[\^a]`), which the engine (as minimatch) builds as its complement (write `[a^]`).
 * @param pattern - The pattern.
 * @returns The reason, to follow "The pattern of … ", or `undefined` for a pattern that means what it reads as.
 */
export function globProblem(pattern: string): string | undefined {
  if (pattern.includes("{") || pattern.includes("}"))
    return "has a brace; tool-name globs do not expand braces: write @(a|b) for {a,b}";
  // Open groups, each whether it is a negation: the engine's time grows exponentially with how deep those nest.
  const groups: boolean[] = [];
  let negations = 0;
  let deepest = 0;
  let bang = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "!") bang = i;
    else if (pattern.startsWith("[\\^", i))
      return "opens a class with \\^, which would match every char but the others: write the ^ later, as in [a^]";
    else if (c === "(") {
      const negation = bang === i - 1;
      groups.push(negation);
      if (negation) deepest = Math.max(deepest, ++negations);
    } else if (c === ")" && groups.pop()) negations--;
  }
  if (deepest > MAX_NEGATION_DEPTH)
    return `nests !(…) ${deepest} deep: more than ${MAX_NEGATION_DEPTH} can take exponential time on a long name`;
  return undefined;
}

/** How deep `!(…)` may nest in a pattern (9 deep took 90 ms on a 200-char name, 16 deep minutes on 1,000). */
const MAX_NEGATION_DEPTH = 4;

/**
 * Refuses a pattern that would not mean what it reads as ({@link globProblem}).
 * @param pattern - The pattern.
 * @param what - What the pattern belongs to, for the message (`gate rule "x"`).
 * @throws UserError when the pattern has a brace, opens a class with an escaped `^`, or nests `!(…)` over 4 deep.
 */
export function checkGlob(pattern: string, what: string): void {
  // A pattern compiled before passed this check (`compileGlobNow` checks first): a gate built per request
  // does not walk its patterns again.
  if (compiled.has(pattern)) return;
  const problem = globProblem(pattern);
  if (problem !== undefined) throw new UserError(`The pattern of ${what} ${problem}.`);
}

/**
 * Compiles a tool-name pattern: an exact name, or a glob (`merchant___*`, see the module).
 * Comments (`#…`) and negation (a leading `!`) are off: a pattern only ever selects names.
 * @param pattern - The pattern.
 * @returns A matcher; an exact name also matches itself when it looks like a glob.
 * @throws UserError when the pattern is refused ({@link globProblem}).
 */
export async function compileGlob(pattern: string): Promise<NameMatcher> {
  if (isGlob(pattern)) engine ??= await loadEngine();
  return compileGlobNow(pattern) as NameMatcher;
}

/**
 * {@link compileGlob}, synchronously once the engine is loaded (a gate built per request compiles its
 * patterns without a promise).
 * @param pattern - The pattern.
 * @returns A matcher, or `undefined` when the pattern is a glob and the engine is not loaded yet.
 * @throws UserError when the pattern is refused ({@link globProblem}).
 */
export function compileGlobNow(pattern: string): NameMatcher | undefined {
  let matcher = compiled.get(pattern);
  if (matcher) return matcher;
  checkGlob(pattern, `"${pattern}"`);
  if (!isGlob(pattern)) matcher = (name) => name === pattern;
  else if (!engine) return undefined;
  else matcher = engine.globMatcher(pattern);
  // Patterns are a gate's configuration, a few per app: kept, and forgotten all at once past a bound.
  if (compiled.size >= 256) compiled.clear();
  compiled.set(pattern, matcher);
  return matcher;
}
