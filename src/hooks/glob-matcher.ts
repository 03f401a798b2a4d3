/**
 * A tool-name glob through minimatch's own matching engine (see `glob.ts`): loaded with the first glob
 * pattern, in a chunk of its own with the engine.
 *
 * @module
 */
import { Matcher } from "@isaacs/nonrecursive-glob-match";
import type { NameMatcher } from "./glob.js";

// Stands for `/` in a name and a pattern (the engine matches one part of a path, a name may hold a `/`);
// another char when either holds this one (`standIn`).
const SLASH = /\//g;
const SLASH_STANDIN = "\uE000";

/**
 * Compiles a glob (checked by `globProblem`) into a matcher that keeps its answers for tool-sized names.
 * @param pattern - The pattern.
 * @returns The matcher.
 */
export function globMatcher(pattern: string): NameMatcher {
  // The engine's matchers, by the stand-in they use for `/` and whether they lead with it (see `test`).
  const globs = new Map<string, Matcher>();
  const test = (name: string) => {
    const slash = standIn(pattern, name);
    // The engine never lets a wildcard match `.` or `..` (a path's own directories), and a tool may be
    // named so: the stand-in, a literal neither holds, leads both, and every other answer stays the same.
    const lead = name === "." || name === ".." ? slash : "";
    let glob = globs.get(lead + slash);
    if (!glob) {
      if (globs.size >= 16) globs.clear();
      glob = new Matcher(lead + pattern.replace(SLASH, slash), { dot: true });
      globs.set(lead + slash, glob);
    }
    return glob.test(lead + name.replace(SLASH, slash));
  };
  // A glob's answer for a name is kept: a gate asks about the same few tools on every call.
  const answers = new Map<string, boolean>();
  return (name) => {
    let answer = answers.get(name);
    if (answer === undefined) {
      answer = name === pattern || test(name);
      // Names the model makes up may be long: only tool-sized ones are kept (at most 256 of them).
      if (name.length > 1024) return answer;
      if (answers.size >= 256) answers.clear();
      answers.set(name, answer);
    }
    return answer;
  };
}

/**
 * The char that stands for `/`: U+E000, unless the pattern or the name holds it (then the first char
 * from there that neither holds), so that no char of either ever reads as a slash.
 */
function standIn(pattern: string, name: string): string {
  if (!pattern.includes(SLASH_STANDIN) && !name.includes(SLASH_STANDIN)) return SLASH_STANDIN;
  const held = new Set<number>();
  for (const c of pattern + name) held.add(c.codePointAt(0) as number);
  let code = SLASH_STANDIN.charCodeAt(0);
  while (held.has(code)) code++;
  return String.fromCodePoint(code);
}
