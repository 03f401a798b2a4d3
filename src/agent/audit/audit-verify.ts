/**
 * Checking and exporting an audit trail: {@link verifyAuditTrail} walks the hash chain, and JSON
 * Lines is the export format (one entry per line, as stored).
 *
 * @module
 */
import { auditEntryHash, auditEntrySchema, type AuditEntry } from "./audit.js";

/** What {@link verifyAuditTrail} found wrong. */
export type AuditProblem =
  /** An entry is not an audit entry of a known version. */
  | "malformed"
  /** An entry does not hash to what the next one carries: it (or the next one's `prev`) was changed. */
  | "edited"
  /** A sequence number is missing. */
  | "dropped"
  /** Entries are out of sequence order. */
  | "reordered"
  /** An entry belongs to another thread. */
  | "other_thread"
  /** The known head is not in the chain: the tail was cut off (or the last entry changed). */
  | "truncated";

/** The result of {@link verifyAuditTrail}. */
export type AuditVerification =
  | { ok: true; count: number; head: string | null }
  | { ok: false; problem: AuditProblem; index: number; message: string };

/** Options of {@link verifyAuditTrail}. */
export interface VerifyAuditOptions {
  /**
   * The hash of the last entry as known earlier (from {@link AuditVerification}'s `head`, kept
   * elsewhere): it must be the hash of one of the entries, or the tail was cut off. Default: none
   * (a cut tail, or a change to the last entry alone, cannot be seen without it).
   */
  head?: string | undefined;
  /** The thread every entry must belong to. Default: the first entry's. */
  threadId?: string | undefined;
}

/**
 * Walks a thread's audit trail from its first entry: every entry must parse, have the next sequence
 * number, belong to the thread, and carry as `prev` the SHA-256 of the entry before it.
 *
 * @param entries - The trail, oldest first (as read from a log or parsed from JSON Lines).
 * @param options - `head` (default none), `threadId` (default the first entry's).
 * @returns `{ ok: true, count, head }` (`head`: the last entry's hash, `null` when empty), or the
 *   first problem with the index of the entry where it shows.
 * @example
 * ```ts
 * const check = await verifyAuditTrail(await audit.entries(threadId), { head: savedHead });
 * if (!check.ok) alert(`audit trail ${check.problem} at entry ${check.index}`);
 * ```
 */
export async function verifyAuditTrail(
  entries: readonly unknown[],
  options: VerifyAuditOptions = {},
): Promise<AuditVerification> {
  const fail = (problem: AuditProblem, index: number, message: string): AuditVerification => ({
    ok: false,
    problem,
    index,
    message,
  });
  let prevHash: string | null = null;
  let headSeen = options.head === undefined;
  const threadId = options.threadId ?? (entries[0] as { threadId?: unknown } | undefined)?.threadId;
  for (let i = 0; i < entries.length; i++) {
    const parsed = auditEntrySchema.safeParse(entries[i]);
    if (!parsed.success) return fail("malformed", i, `Entry ${i} is not an audit entry.`);
    const entry: AuditEntry = parsed.data;
    if (entry.threadId !== threadId)
      return fail("other_thread", i, `Entry ${i} belongs to thread "${entry.threadId}".`);
    if (entry.seq !== i) {
      const later = entries.slice(i + 1).some((e) => (e as { seq?: unknown } | null)?.seq === i);
      return later || entry.seq < i
        ? fail("reordered", i, `Entry ${i} has sequence number ${entry.seq}.`)
        : fail("dropped", i, `Entry ${i} is missing (the next one has sequence number ${entry.seq}).`);
    }
    if (entry.prev !== prevHash) {
      return i === 0
        ? fail("edited", 0, "The first entry names a previous entry.")
        : fail("edited", i - 1, `Entry ${i - 1} does not match the hash entry ${i} carries.`);
    }
    // Hashed as given, not as parsed: a field the schema does not know is part of the record too.
    prevHash = auditEntryHash(entries[i]);
    if (prevHash === options.head) headSeen = true;
  }
  if (!headSeen)
    return fail("truncated", entries.length, "The known head is not in the trail: entries were cut off or changed.");
  return { ok: true, count: entries.length, head: prevHash };
}

/**
 * The trail as JSON Lines: one entry per line, each as stored, ending with a newline.
 *
 * @param entries - The trail, oldest first.
 * @returns The text (empty for no entries).
 */
export function auditToJsonLines(entries: readonly AuditEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

/**
 * Reads JSON Lines back (blank lines skipped); a line that is not JSON is kept as its text, so
 * {@link verifyAuditTrail} reports it as `malformed` at its place instead of the reader skipping it.
 *
 * @param text - What {@link auditToJsonLines} wrote (or an edited copy).
 * @returns The entries, unverified.
 */
export function auditFromJsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      out.push(line);
    }
  }
  return out;
}
