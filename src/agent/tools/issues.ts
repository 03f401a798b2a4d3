/**
 * Problems found in input, one line each: a tool's input (any Standard Schema library) and the
 * package's own checks (zod) read the same.
 *
 * @module
 */
import type { StandardSchemaV1 } from "./standard-schema.js";

/**
 * One line per issue: `- items[0].name: Expected string` (`- ` alone for the root).
 * @param issues - Standard Schema issues, or a zod error's `issues`.
 * @returns The lines, joined with newlines.
 * @example
 * ```ts
 * formatIssues([{ message: "Expected string", path: ["items", 0, "name"] }]); // "- items[0].name: Expected string"
 * ```
 */
export function formatIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      const where = pathText(issue.path ?? []);
      return `- ${where ? `${where}: ` : ""}${issue.message}`;
    })
    .join("\n");
}

function pathText(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment>): string {
  let text = "";
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}
