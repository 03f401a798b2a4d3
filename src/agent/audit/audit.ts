/**
 * The audit trail: an append-only, hash-chained record per thread of what a person was asked,
 * what they (or a grant) decided, and what ran. Each entry carries the SHA-256 of the canonical JSON
 * of the entry before it (`prev`), so an edited, dropped or reordered entry breaks the chain where
 * {@link verifyAuditTrail} finds it.
 *
 * This module owns the entry format and the append rule; storage is a small
 * {@link AuditChainStorage} (insert-if-absent by sequence number), implemented in memory here, in
 * IndexedDB for the page and in each thread store for the edge.
 *
 * @module
 */
import { SPAN_ID, TRACE_ID } from "./trace-ids.js";
import * as z from "zod/v4/mini";
import { looseObject } from "../shared/lean-schemas.js";
import { canonicalJson } from "../shared/canonical-json.js";
import { canonicalSha256 } from "./digest.js";
import { sha256Hex } from "../shared/sha256.js";
import { KabooError } from "../../errors.js";
import { jsonValueSchema } from "../interrupts/interrupt.js";

/**
 * Version of an audit entry.
 *
 * - 1: `{ v, seq, threadId, at, prev, kind, … }` with the kinds of {@link AuditRecord}; a `request` may
 *   carry `drivenBy` (added without a new version: a reader of 1 keeps unknown keys, and hashes them). A call's
 *   entry may carry `traceId` and `spanId` ({@link AuditTraceIds}; added the same way: entries without them
 *   still parse and verify).
 */
export const AUDIT_ENTRY_VERSION = 1 satisfies AuditEntry["v"];

export type * from "./audit-types.js";
import type { AuditChainStorage, AuditEntry, AuditLog, AuditRecord } from "./audit-types.js";

/** The audit trail could not be written (its storage failed, or kept losing races). */
export class AuditWriteError extends KabooError {
  readonly code = "AUDIT_WRITE_FAILED" as const;
}

// A refine, not z.int(): zod's integer format pulls in its number formats for one check.
const int = z.number().check(z.refine(Number.isSafeInteger, "Expected an integer"));
const str = z.string();
const nstr = z.nullable(z.string());
const chain = {
  v: z.literal(AUDIT_ENTRY_VERSION),
  seq: z.number().check(z.refine((n) => Number.isSafeInteger(n) && n >= 0, "Expected a non-negative integer")),
  threadId: str,
  at: z.number(),
  prev: z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
};
const call = {
  tool: str,
  toolUseId: str,
  traceId: z.optional(z.string().check(z.regex(TRACE_ID))),
  spanId: z.optional(z.string().check(z.regex(SPAN_ID))),
};

export { isAuditTraceIds } from "./trace-ids.js";

/** The zod schema of a stored {@link AuditEntry}; unknown keys are kept (they are part of what was hashed). */
export const auditEntrySchema: z.ZodMiniType<AuditEntry> = z.union([
  looseObject({
    ...chain,
    ...call,
    kind: z.literal("request"),
    interruptId: str,
    argsDigest: str,
    subject: z.nullable(z.object({ key: str, label: str })),
    rule: str,
    principal: nstr,
    expiresAt: nstr,
    required: int,
    drivenBy: z.optional(str),
  }),
  looseObject({
    ...chain,
    ...call,
    kind: z.literal("decision"),
    interruptId: str,
    principal: nstr,
    decision: z.literal(["approved", "denied", "skipped", "expired", "refused"]),
    scope: z.nullable(z.literal(["once", "thread", "always"])),
    editsDigest: nstr,
    signature: nstr,
    note: nstr,
  }),
  looseObject({
    ...chain,
    ...call,
    kind: z.literal("grant_use"),
    grantId: str,
    source: z.literal(["grant", "run"]),
    principal: nstr,
  }),
  looseObject({
    ...chain,
    ...call,
    kind: z.literal("execution"),
    idempotencyKey: str,
    claim: z.literal(["claimed", "done", "unknown"]),
    status: z.nullable(z.literal(["success", "error"])),
    resultDigest: nstr,
    answer: z.nullable(z.literal(["run_again", "treat_as_done", "cancel"])),
  }),
  looseObject({ ...chain, kind: z.literal("revocation"), grantIds: z.array(str), principal: nstr, by: nstr }),
]) as unknown as z.ZodMiniType<AuditEntry>;

/** @internal Any JSON value (used by stores that validate what they read). */
export const auditJsonSchema: z.ZodMiniType<unknown> = jsonValueSchema;

/**
 * The hash the next entry carries as `prev`: SHA-256 (hex) of the entry's canonical JSON.
 *
 * @param entry - A stored entry (as JSON: no `undefined` fields).
 * @returns 64 hex digits.
 */
export function auditEntryHash(entry: unknown): string {
  return canonicalSha256(entry);
}

/** A thread's last entry as an instance wrote it: its number, and its hash (computed on first use) or text. */
interface Tail {
  seq: number;
  hash: string | undefined;
  text?: string | undefined;
}

const APPEND_TRIES = 32;
/** Threads whose last entry an instance remembers (the rest read their tail from storage). */
const MAX_TAILS = 1024;

/**
 * The {@link AuditLog} over any {@link AuditChainStorage}: appends in one instance are queued per
 * thread (so a batch's concurrent calls never race each other), and an append that loses a race
 * with another isolate or tab reads the new tail and tries again.
 */
export class ChainedAuditLog implements AuditLog {
  readonly #storage: AuditChainStorage;
  readonly #now: () => number;
  readonly #queues = new Map<string, Promise<AuditEntry>>();
  /**
   * The tail this instance wrote last, per thread, so an uncontended append skips the read. Its hash
   * is computed when the next entry needs it as `prev`, not when it is written: the write that ends a
   * call (its execution entry) does not hash, and a thread's last entry is never hashed for nothing.
   */
  readonly #tails = new Map<string, Tail>();

  /**
   * @param storage - Where entries go.
   * @param now - Clock, epoch ms. Default `Date.now`.
   */
  constructor(storage: AuditChainStorage, now: () => number = Date.now) {
    this.#storage = storage;
    this.#now = now;
  }

  append(threadId: string, record: AuditRecord): Promise<AuditEntry> {
    const prior = this.#queues.get(threadId);
    const run = () => this.#append(threadId, record);
    const next = prior ? prior.then(run, run) : run();
    this.#queues.set(threadId, next);
    const done = () => {
      if (this.#queues.get(threadId) === next) this.#queues.delete(threadId);
    };
    next.then(done, done);
    return next;
  }

  async entries(threadId: string): Promise<AuditEntry[]> {
    return (await this.#storage.list(threadId)) as AuditEntry[];
  }

  async #append(threadId: string, record: AuditRecord): Promise<AuditEntry> {
    // Absent is null, never undefined: what is hashed must be exactly what is stored and read back.
    const body = { ...record } as Record<string, unknown>;
    for (const key of Object.keys(body)) if (body[key] === undefined) body[key] = null;
    let tail = this.#tails.get(threadId);
    for (let attempt = 0; attempt < APPEND_TRIES; attempt++) {
      if (tail === undefined || attempt > 0) {
        const last = await this.#storage.last(threadId);
        tail = last === undefined ? undefined : { seq: last.seq, hash: auditEntryHash(last) };
      } else if (tail.hash === undefined) {
        tail.hash = sha256Hex(tail.text as string);
        tail.text = undefined;
      }
      const entry = {
        v: AUDIT_ENTRY_VERSION,
        seq: tail === undefined ? 0 : tail.seq + 1,
        threadId,
        at: this.#now(),
        prev: tail?.hash ?? null,
        ...body,
      } as AuditEntry;
      const text = canonicalJson(entry);
      let stored: boolean;
      try {
        stored = await this.#storage.insert(entry, text);
      } catch (cause) {
        throw new AuditWriteError(`The audit trail of thread "${threadId}" could not be written.`, { cause });
      }
      if (stored) {
        // Bounded: a server appends to many threads; a thread whose tail was dropped reads it back.
        if (this.#tails.size >= MAX_TAILS && !this.#tails.has(threadId))
          this.#tails.delete(this.#tails.keys().next().value as string);
        this.#tails.set(threadId, { seq: entry.seq, hash: undefined, text });
        return entry;
      }
    }
    throw new AuditWriteError(`Appending to the audit trail of thread "${threadId}" kept losing races.`);
  }
}

/** The part of {@link ChainedAuditLog} a memory store keeps: entries as JSON text, per thread. */
class MemoryChainStorage implements AuditChainStorage {
  readonly #threads = new Map<string, string[]>();

  async last(threadId: string): Promise<AuditEntry | undefined> {
    const rows = this.#threads.get(threadId);
    const text = rows?.[rows.length - 1];
    return text === undefined ? undefined : (JSON.parse(text) as AuditEntry);
  }

  async insert(entry: AuditEntry, text: string): Promise<boolean> {
    let rows = this.#threads.get(entry.threadId);
    if (!rows) {
      rows = [];
      this.#threads.set(entry.threadId, rows);
    }
    if (rows.length !== entry.seq) return false;
    rows.push(text);
    return true;
  }

  async list(threadId: string): Promise<unknown[]> {
    return (this.#threads.get(threadId) ?? []).map((text) => JSON.parse(text) as unknown);
  }

  /** For tests of tampering: the stored texts themselves. */
  rows(threadId: string): string[] {
    let rows = this.#threads.get(threadId);
    if (!rows) {
      rows = [];
      this.#threads.set(threadId, rows);
    }
    return rows;
  }
}

/** Options of {@link MemoryAuditLog}. */
export interface MemoryAuditLogOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * An {@link AuditLog} in memory (entries kept as JSON text): for tests, a single-process server,
 * and pages that need no record across reloads.
 *
 * @example
 * ```ts
 * const audit = new MemoryAuditLog();
 * const agent = new Agent({ model, tools, hooks: [gate], audit });
 * // …after runs:
 * const check = await verifyAuditTrail(await audit.entries(threadId));
 * ```
 */
export class MemoryAuditLog extends ChainedAuditLog {
  readonly #storage: MemoryChainStorage;

  /** @param options - `now` (default `Date.now`). */
  constructor(options: MemoryAuditLogOptions = {}) {
    const storage = new MemoryChainStorage();
    super(storage, options.now);
    this.#storage = storage;
  }

  /**
   * The stored JSON texts of a thread, live: editing, removing or swapping one simulates tampering
   * with the storage (tests, drills). Never needed in production.
   *
   * @param threadId - The thread.
   * @returns The array the store reads from.
   */
  storedRows(threadId: string): string[] {
    return this.#storage.rows(threadId);
  }
}
