/**
 * What a gate's approval is about: the subject a rule's function gives a call, failing closed
 * when the function breaks.
 *
 * @module
 */
import type { Logger } from "../../logger.js";
import { jsonHash, type ApprovalSubject } from "./request.js";

/**
 * Decides what a remembered decision about a call covers.
 * Gets the tool's name and its *validated* input (never anything the model labels itself).
 * @returns `{ key, label }`, a string (key and label alike), or `null` when the call needs no approval.
 */
export type SubjectFn = (toolName: string, toolInput: unknown) => ApprovalSubject | string | null;

/** A call's subject: `key` `null` means the whole tool. */
export interface CallSubject {
  key: string | null;
  label: string;
}

const UNKNOWN = "__unknown__:";

/**
 * The subject of one call.
 * @param subjectFn - The rule's function; `undefined`: the whole tool.
 * @returns The subject, or `null` when the call needs no approval. A function that throws or
 *   returns something else gives an unknown subject (asked about, never remembered).
 */
export function callSubject(
  subjectFn: SubjectFn | undefined,
  toolName: string,
  input: unknown,
  log: Logger,
): CallSubject | null {
  if (!subjectFn) return { key: null, label: `a call to "${toolName}"` };
  let s: ReturnType<SubjectFn>;
  try {
    s = subjectFn(toolName, input);
  } catch (error) {
    // Fail closed: a broken subject function still asks, for this call only.
    log.error("gate subject function threw; asking for this call only", { tool: toolName, error: String(error) });
    return { key: `${UNKNOWN}${jsonHash(input)}`, label: `a call to "${toolName}"` };
  }
  if (s === null) return null;
  if (typeof s === "string") return { key: s, label: s };
  if (typeof s === "object" && typeof s.key === "string" && typeof s.label === "string")
    return { key: s.key, label: s.label };
  log.error("gate subject function returned an invalid subject; asking for this call only", { tool: toolName });
  return { key: `${UNKNOWN}${jsonHash(input)}`, label: `a call to "${toolName}"` };
}

/** Whether a subject could not be computed (then it is asked about once, never remembered). */
export function isUnknownSubject(subject: CallSubject): boolean {
  return subject.key?.startsWith(UNKNOWN) ?? false;
}
