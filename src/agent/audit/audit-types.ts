/**
 * The audit trail's shapes: the records a run writes (what a person was asked, what was decided, what
 * ran, what was revoked), an entry as chained and stored, and the storage and log contracts. Types only:
 * the format's schema, hashing and append rule are `audit.ts`'s.
 *
 * @module
 */

/**
 * Where a call's entry sits in a trace: the W3C ids of the call's `execute_tool` span, set when a tracing hook
 * traced the run (`TracingHook` of `kaboo-workflows/otel`, through `traceRunAudit`), absent otherwise. They are
 * hashed with the rest of the entry, like every field: a trace id edited afterwards breaks the chain, so an
 * auditor can trust the link from the entry to the trace (the trace itself is the tracing backend's to keep).
 */
export interface AuditTraceIds {
  /** The trace's id: 32 lowercase hex digits. */
  traceId: string;
  /** The call's span's id: 16 lowercase hex digits. */
  spanId: string;
}

/** The optional trace ids of a call's entry (see {@link AuditTraceIds}). */
export interface AuditTraced {
  /** {@link AuditTraceIds.traceId}, when the run was traced. */
  traceId?: string;
  /** {@link AuditTraceIds.spanId}, when the run was traced. */
  spanId?: string;
}

/** A question put to a person: which call, about what, under which rule. */
export interface AuditRequestRecord extends AuditTraced {
  kind: "request";
  tool: string;
  toolUseId: string;
  interruptId: string;
  /** {@link jsonDigest} of the arguments shown. */
  argsDigest: string;
  subject: { key: string; label: string } | null;
  /** The gate rule's pattern. */
  rule: string;
  /**
   * Who asked: the person whose conversation the question is in (a four-eyes request names its
   * `requestedBy`), also when another person's answer drove the run that showed it.
   */
  principal: string | null;
  expiresAt: string | null;
  /** Approvals the rule needs (1 unless a four-eyes rule). */
  required: number;
  /** Whose answer drove the run that showed the question, when not the one who asked (an approver). */
  drivenBy?: string;
}

/** An answer to a question, with who gave it. */
export interface AuditDecisionRecord extends AuditTraced {
  kind: "decision";
  tool: string;
  toolUseId: string;
  interruptId: string;
  principal: string | null;
  decision: "approved" | "denied" | "skipped" | "expired" | "refused";
  scope: "once" | "thread" | "always" | null;
  /** {@link jsonDigest} of the edited arguments, when the person edited them. */
  editsDigest: string | null;
  /** The resume entry's `metadata.signature` (AG-UI), when the page signed its answer. */
  signature: string | null;
  /** Why a `refused` answer did not count (an approver not eligible, the requester, …). */
  note: string | null;
}

/** A call that ran without a question because a grant covered it. */
export interface AuditGrantUseRecord extends AuditTraced {
  kind: "grant_use";
  tool: string;
  toolUseId: string;
  /** The grant's id (`grantId`), or `run:<tool>` for an approval given earlier in the same run. */
  grantId: string;
  source: "grant" | "run";
  principal: string | null;
}

/** What the execution ledger answered for a call, and what came of it. */
export interface AuditExecutionRecord extends AuditTraced {
  kind: "execution";
  tool: string;
  toolUseId: string;
  idempotencyKey: string;
  /** `claimed`: it ran here; `done`: a recorded result was replayed; `unknown`: its outcome was lost. */
  claim: "claimed" | "done" | "unknown";
  status: "success" | "error" | null;
  /** {@link jsonDigest} of the result as recorded. */
  resultDigest: string | null;
  /** For `unknown`: how the person answered (`run_again`, `treat_as_done`, `cancel`). */
  answer: "run_again" | "treat_as_done" | "cancel" | null;
}

/** Grants taken back. */
export interface AuditRevocationRecord {
  kind: "revocation";
  grantIds: string[];
  /** Whose grants. */
  principal: string | null;
  /** Who revoked them, when known. */
  by: string | null;
}

/** What an entry says, without its chain fields. */
export type AuditRecord =
  | AuditRequestRecord
  | AuditDecisionRecord
  | AuditGrantUseRecord
  | AuditExecutionRecord
  | AuditRevocationRecord;

/** The entries about one call (every kind but a revocation): those that may carry {@link AuditTraceIds}. */
export type AuditCallRecord = Exclude<AuditRecord, AuditRevocationRecord>;

/** The chain fields every entry has. */
export interface AuditChainFields {
  /** The entry's version: `AUDIT_ENTRY_VERSION` (1). */
  v: 1;
  /** 0 for the thread's first entry, then one more each. */
  seq: number;
  threadId: string;
  /** Epoch ms. */
  at: number;
  /** SHA-256 (hex) of the previous entry's canonical JSON; `null` for the first. */
  prev: string | null;
}

/** One stored audit entry. */
export type AuditEntry = AuditChainFields & AuditRecord;

/**
 * Where an {@link AuditLog} keeps each thread's entries: an insert that succeeds only when the
 * sequence number is free (atomic in the backing store), and reads in sequence order.
 */
export interface AuditChainStorage {
  /** The thread's last entry, or `undefined` when it has none. */
  last(threadId: string): Promise<AuditEntry | undefined>;
  /**
   * Stores `entry` under `entry.seq` unless that number is taken; `true` when it stored it. `text`
   * is the entry's canonical JSON (what its successor's `prev` hashes): store it, or the entry.
   */
  insert(entry: AuditEntry, text: string): Promise<boolean>;
  /** The thread's entries in sequence order (as stored; the reader verifies them). */
  list(threadId: string): Promise<unknown[]>;
}

/**
 * A per-thread audit trail. Implementations: {@link MemoryAuditLog}, `IndexedDbAuditLog` (the page),
 * and the thread stores' (`DurableObjectAuditLog`, `DenoKvAuditLog`).
 */
export interface AuditLog {
  /** Appends one entry to the thread's chain; resolves to the entry as stored. */
  append(threadId: string, record: AuditRecord): Promise<AuditEntry>;
  /** The thread's entries, oldest first. Unverified: pass them to `verifyAuditTrail`. */
  entries(threadId: string): Promise<AuditEntry[]>;
}
