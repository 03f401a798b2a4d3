/**
 * Tool-name globs for the hooks, through minimatch, loaded only when a pattern needs it.
 *
 * Why lazily: minimatch reads an environment variable through Node's `process` global when its
 * module loads, which Deno refuses without `--allow-env`. Plain tool names never load it, so only
 * hosts that use glob patterns under Deno need `--allow-env=__MINIMATCH_TESTING_PLATFORM__`.
 *
 * @module
 */

/** A compiled pattern. */
export type NameMatcher = (name: string) => boolean;

// Characters that give a pattern glob meaning in minimatch (extglobs and braces included).
const MAGIC = /[*?[\]{}()!+@]/;

let loading: Promise<typeof import("minimatch")> | undefined;
let minimatch: typeof import("minimatch") | undefined;
/** Matchers compiled so far, by pattern (a gate built per request compiles the same patterns again). */
const compiled = new Map<string, NameMatcher>();

/** Whether the pattern needs glob matching (otherwise it is an exact name). */
export function isGlob(pattern: string): boolean {
  return MAGIC.test(pattern);
}

/**
 * Compiles a tool-name pattern: an exact name, or a minimatch glob (`merchant___*`).
 * Comments (`#…`) and negation (`!…`) are off: a pattern only ever selects names.
 * @param pattern - The pattern.
 * @returns A matcher; an exact name also matches itself when it looks like a glob.
 */
export async function compileGlob(pattern: string): Promise<NameMatcher> {
  if (isGlob(pattern)) minimatch ??= await (loading ??= import("minimatch"));
  return compileGlobNow(pattern) as NameMatcher;
}

/**
 * {@link compileGlob}, synchronously once minimatch is loaded (a gate built per request compiles its
 * patterns without a promise).
 * @param pattern - The pattern.
 * @returns A matcher, or `undefined` when the pattern is a glob and minimatch is not loaded yet.
 */
export function compileGlobNow(pattern: string): NameMatcher | undefined {
  let matcher = compiled.get(pattern);
  if (matcher) return matcher;
  if (!isGlob(pattern)) matcher = (name) => name === pattern;
  else if (!minimatch) return undefined;
  else {
    const matches = minimatch.filter(pattern, { nocomment: true, nonegate: true });
    // A glob's answer for a name is kept: a gate asks about the same few tools on every call.
    const answers = new Map<string, boolean>();
    matcher = (name) => {
      let answer = answers.get(name);
      if (answer === undefined) {
        answer = name === pattern || matches(name);
        if (answers.size >= 256) answers.clear();
        answers.set(name, answer);
      }
      return answer;
    };
  }
  // Patterns are a gate's configuration, a few per app: kept, and forgotten all at once past a bound.
  if (compiled.size >= 256) compiled.clear();
  compiled.set(pattern, matcher);
  return matcher;
}
