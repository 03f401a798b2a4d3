/**
 * Grants: decisions a person asked to be remembered ("allow this tool for this
 * conversation", "…from now on"), their zod schema, and the parser every read
 * goes through. Grants arrive from storage and from `forwardedProps`, so they are
 * untrusted: each entry is validated alone, and a bad one is skipped and reported.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { sizedString } from "../agent/shared/lean-schemas.js";
import { KabooError } from "../errors.js";

/**
 * Version of a grant's canonical (signed) form, see `canonicalGrant`.
 *
 * - 1: `v1\n` then, one per line and JSON-encoded (absent = `null`): tool, subjectKey,
 *   subjectLabel, scope, threadId, grantedAt, expiresAt.
 * - 2: `v2\n`, the same lines, then `principal`. Used for grants bound to a person; a grant
 *   without a principal keeps the v1 form, so v1 signatures stay valid.
 */
export const GRANT_VERSION = 2;

/**
 * Scopes a remembered decision can have, narrowest first (`once` is never stored). Frozen: gates hand this very
 * array to grant lookups as a rule's scopes, so no lookup can change what every later one reaches.
 */
export const GRANT_SCOPES = Object.freeze(["thread", "always"] as const);

/** Scope of a stored grant: this conversation, or from now on. */
export type GrantScope = (typeof GRANT_SCOPES)[number];

/**
 * A remembered permission. Times are **epoch milliseconds** (numbers, not ISO
 * strings): they compare without parsing and JSON-encode the same in every runtime,
 * which the signature depends on.
 */
export interface Grant {
  /** Exact tool name the grant covers (no globs). */
  tool: string;
  /** What the grant covers within the tool (the gate rule's subject key). Absent: only calls with no subject. */
  subjectKey?: string | undefined;
  /** Human-readable subject, for a grants manager. Not used for matching. */
  subjectLabel?: string | undefined;
  /** `thread`: only in `threadId`; `always`: in every thread. */
  scope: GrantScope;
  /** Required when `scope` is `thread`; not allowed for `always`. */
  threadId?: string | undefined;
  /** When it was granted, epoch ms. */
  grantedAt: number;
  /** When it stops applying, epoch ms (exclusive). Absent: never. */
  expiresAt?: number | undefined;
  /**
   * The person it belongs to (the edge handler's `principal`). A grant with one applies only to
   * runs of that person; a grant without one only to runs with no principal.
   */
  principal?: string | undefined;
  /** `v1.<base64url HMAC-SHA256>` (`v2.` for a grant with a principal) over the canonical form, for hosts that verify grants. */
  signature?: string | undefined;
}

const MAX_NAME = 1024;
const MAX_TEXT = 4096;
// A refine, not z.int(): zod's integer format pulls in its number formats for one check.
const epochMs = z.number().check(z.refine((n) => Number.isSafeInteger(n) && n >= 0, "Expected a non-negative integer"));

/**
 * The zod schema of a {@link Grant}. Unknown keys are stripped, never kept: a
 * field the signature does not cover must not reach the gate.
 */
export const grantSchema: z.ZodMiniType<Grant> = z
  .object({
    tool: sizedString(1, MAX_NAME),
    subjectKey: z.optional(sizedString(0, MAX_TEXT)),
    subjectLabel: z.optional(sizedString(0, MAX_TEXT)),
    scope: z.literal(GRANT_SCOPES),
    threadId: z.optional(sizedString(1, MAX_NAME)),
    grantedAt: epochMs,
    expiresAt: z.optional(epochMs),
    principal: z.optional(sizedString(1, MAX_NAME)),
    signature: z.optional(sizedString(0, 256)),
  })
  .check((ctx) => {
    const g = ctx.value;
    const issue = (path: string, message: string) =>
      ctx.issues.push({ code: "custom", path: [path], message, input: g });
    // A thread grant without its thread would be impossible to scope; an
    // `always` grant with one would make its id (and revocation) ambiguous.
    if (g.scope === "thread" && g.threadId === undefined) issue("threadId", 'required when scope is "thread"');
    if (g.scope === "always" && g.threadId !== undefined) issue("threadId", 'not allowed when scope is "always"');
    if (g.expiresAt !== undefined && g.expiresAt <= g.grantedAt) issue("expiresAt", "must be after grantedAt");
  });

/** One entry {@link parseGrants} refused, with why. */
export interface RejectedGrant {
  /** The entry as received (never used for matching). */
  value: unknown;
  /** Readable reason, e.g. `threadId: required when scope is "thread"`. */
  reason: string;
}

/** A grant value failed validation where it had to be valid (e.g. `GrantStore.grant`). */
export class InvalidGrantError extends KabooError {
  readonly code = "INVALID_GRANT" as const;
  /** Readable reason. */
  readonly reason: string;
  constructor(reason: string) {
    super(`Invalid grant: ${reason}.`);
    this.reason = reason;
  }
}

function issuesText(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

/**
 * Validate one grant.
 *
 * @param value - Anything (from storage, the wire, a form).
 * @returns `{ ok: true, grant }` with a fresh object holding only known keys, or `{ ok: false, reason }`.
 */
export function parseGrant(value: unknown): { ok: true; grant: Grant } | { ok: false; reason: string } {
  const result = grantSchema.safeParse(value);
  return result.success ? { ok: true, grant: result.data } : { ok: false, reason: issuesText(result.error) };
}

/** Default most grants {@link parseGrants} reads from one list; later entries are ignored (and counted). */
export const DEFAULT_MAX_GRANTS = 256;

/** Options of {@link parseGrants}. */
export interface ParseGrantsOptions {
  /** Most entries read; the rest are ignored and counted in `ignored`. Default {@link DEFAULT_MAX_GRANTS}. */
  maxGrants?: number | undefined;
}

/** What {@link parseGrants} made of a list. */
export interface ParsedGrants {
  /** The valid grants, in input order. */
  grants: Grant[];
  /** The entries read and refused, with reasons. */
  rejected: RejectedGrant[];
  /** Entries past `maxGrants`, not read at all. */
  ignored: number;
}

/**
 * The cheap part of validation: whether an entry can be a grant at all. Most hostile entries (`{}`,
 * `[]`, numbers) fail here with a short reason and never reach the schema, whose issue list is the
 * costly part of a refusal.
 */
function shapeProblem(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return "a grant must be an object";
  const g = entry as Record<string, unknown>;
  if (typeof g.tool !== "string") return "tool: must be a string";
  if (g.scope !== "thread" && g.scope !== "always") return 'scope: must be "thread" or "always"';
  if (typeof g.grantedAt !== "number") return "grantedAt: must be a number";
  return undefined;
}

/**
 * Validate a list of grants entry by entry (e.g. `forwardedProps.kaboo_grants`).
 * Corrupt entries are skipped and returned in `rejected`, never trusted; one bad
 * entry does not discard the good ones. Only the first `maxGrants` entries are read, so a list's
 * cost is bounded whatever its length; the rest are counted in `ignored`.
 *
 * @param value - The untrusted list. `undefined`/`null` mean "no grants" and are not a rejection.
 * @param options - `maxGrants` (default {@link DEFAULT_MAX_GRANTS}).
 * @returns The valid grants, in input order, the rejected entries with reasons, and how many were ignored.
 * @example
 * ```ts
 * const { grants, rejected, ignored } = parseGrants(forwardedProps.kaboo_grants);
 * if (rejected.length || ignored) console.warn(`${rejected.length} grants refused, ${ignored} not read`);
 * ```
 */
export function parseGrants(value: unknown, options: ParseGrantsOptions = {}): ParsedGrants {
  const grants: Grant[] = [];
  const rejected: RejectedGrant[] = [];
  if (value === undefined || value === null) return { grants, rejected, ignored: 0 };
  if (!Array.isArray(value)) {
    rejected.push({ value, reason: "grants must be an array" });
    return { grants, rejected, ignored: 0 };
  }
  const max = options.maxGrants ?? DEFAULT_MAX_GRANTS;
  const read = Math.min(value.length, max);
  for (let i = 0; i < read; i++) {
    const entry: unknown = value[i];
    const problem = shapeProblem(entry);
    const parsed = problem === undefined ? parseGrant(entry) : { ok: false as const, reason: problem };
    if (parsed.ok) grants.push(parsed.grant);
    else rejected.push({ value: entry, reason: parsed.reason });
  }
  return { grants, rejected, ignored: value.length - read };
}

/**
 * One line for everything a run refused of a grant list: how many, the reasons counted (at most
 * three named), and how many were not read. Logged once per list instead of once per entry.
 *
 * @param rejected - Reasons of refused entries.
 * @param ignored - Entries not read (past the cap). Default 0.
 * @param max - The cap that was applied, for the text. Default {@link DEFAULT_MAX_GRANTS}.
 * @returns `undefined` when nothing was refused or ignored; else e.g.
 *   `3 grants refused (2× tool: must be a string; 1× the grant has no signature), 100 not read (over 256)`.
 */
export function grantRefusalSummary(
  rejected: readonly { reason: string }[],
  ignored = 0,
  max?: number,
): string | undefined {
  if (rejected.length === 0 && ignored === 0) return undefined;
  const counts = new Map<string, number>();
  for (const r of rejected) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1);
  const named = [...counts].slice(0, 3).map(([reason, n]) => `${n}× ${reason}`);
  if (counts.size > 3) named.push(`${counts.size - 3} other reasons`);
  const parts: string[] = [];
  if (rejected.length) parts.push(`${rejected.length} grants refused (${named.join("; ")})`);
  if (ignored) parts.push(`${ignored} not read (over ${max ?? DEFAULT_MAX_GRANTS})`);
  return parts.join(", ");
}

/**
 * The stable id of a grant: the same scope, thread, tool and subject give the same
 * id, so granting the same thing again replaces the old grant instead of adding one.
 *
 * @param grant - At least `scope`, `tool`, and `threadId`/`subjectKey`/`principal` when present.
 * @returns A JSON array string, e.g. `["thread","t1","send_money","acct:42"]` (absent = `null`;
 *   the principal is a fifth entry when present).
 */
export function grantId(grant: Pick<Grant, "scope" | "tool" | "threadId" | "subjectKey" | "principal">): string {
  const parts = [grant.scope, grant.threadId ?? null, grant.tool, grant.subjectKey ?? null];
  // Two people's grants for the same thing are two grants; ids of grants without a person are unchanged.
  return JSON.stringify(grant.principal === undefined ? parts : [...parts, grant.principal]);
}
