/**
 * The grant store a host keeps: what it sends as `forwardedProps.kaboo_grants`,
 * what a grants manager lists and revokes. The interface, shared helpers, and the
 * in-memory store (tests, servers, pages that should forget on reload).
 *
 * @module
 */
import type { AuditLog } from "../agent/audit/audit.js";
import { coverNow, coversCall, isExpired, type CoversNow, type GrantQuery } from "./find.js";
import { InvalidGrantError, grantId, parseGrant } from "./grant.js";
import type { Grant } from "./grant.js";

/** A grant to store; `grantedAt` defaults to the store's clock. */
export type GrantInput = Omit<Grant, "grantedAt"> & { grantedAt?: number | undefined };

/** Identifies one grant by what its id is made of. */
export type GrantKey = Pick<Grant, "scope" | "tool" | "threadId" | "subjectKey" | "principal">;

/** What to revoke: a grant id, a grant's key fields (exact), or a predicate over valid grants. */
export type RevokeTarget = string | GrantKey | ((grant: Grant) => boolean);

/** A change in a store, from this store instance (`local`) or another tab/instance (`remote`). */
export interface GrantChange {
  type: "grant" | "revoke" | "clear";
  /** Ids of the grants granted or revoked (empty for `clear`). */
  ids: readonly string[];
  origin: "local" | "remote";
}

/** A stored entry that failed validation; it was skipped, not returned. */
export interface CorruptGrant {
  /** Its storage key. */
  key: unknown;
  value: unknown;
  reason: string;
}

/**
 * Where a host keeps grants. Every read returns only validated grants.
 *
 * @example
 * ```ts
 * const store = new IndexedDbGrantStore();
 * await store.grant({ tool: "send_money", subjectKey: "acct:42", scope: "thread", threadId });
 * agent.runAgent({ forwardedProps: { kaboo_grants: await store.grantsFor(threadId) } });
 * ```
 */
export interface GrantStore {
  /** Store a grant (replacing one with the same id). Throws {@link InvalidGrantError} for invalid input. */
  grant(input: GrantInput): Promise<Grant>;
  /** Every valid grant, expired ones included (a manager may show them). */
  list(): Promise<Grant[]>;
  /**
   * This thread's grants plus the `always` ones, unexpired, of one person (`principal`; absent:
   * grants that name no person): what goes out as `kaboo_grants`.
   */
  grantsFor(threadId: string, options?: GrantsForOptions): Promise<Grant[]>;
  /** Revoke matching grants; resolves to how many were removed. */
  revoke(target: RevokeTarget): Promise<number>;
  /** Remove every entry, corrupt ones included. */
  revokeAll(): Promise<void>;
  /** Call `listener` on every change, local or from another tab. Returns the unsubscribe function. */
  subscribe(listener: (change: GrantChange) => void): () => void;
}

/**
 * A grant store a server keeps for many people ({@link MemoryGrantStore}, and the Durable Object and
 * Deno KV stores of `kaboo-workflows/stores/*`): one person's grants are read, and revoked, by their
 * principal. Every such store passes one revocation contract.
 *
 * @example
 * ```ts
 * await grantStore.revokePrincipal("ann", "transfer"); // ann's transfer grants, on the next request
 * await grantStore.revokePrincipal("ann"); // every grant of ann
 * ```
 */
export interface ServerGrantStore extends GrantStore {
  /**
   * Every valid grant of one person, expired ones included.
   * @param principal - Whose grants (`undefined`: grants that name no person).
   */
  grantsOf(principal: string | undefined): Promise<Grant[]>;
  /**
   * Revokes every grant of one person, or only those for one tool; recorded in the person's audit
   * trail ({@link grantsAuditThread}) when the store has one.
   * @param principal - Whose grants (`undefined`: grants that name no person).
   * @param tool - Only this tool's grants. Default: every tool.
   * @returns How many were removed.
   */
  revokePrincipal(principal: string | undefined, tool?: string): Promise<number>;
}

/** Options of {@link GrantStore.grantsFor}. */
export interface GrantsForOptions {
  /** Epoch ms. Default: the store's clock. */
  now?: number | undefined;
  /** Whose grants. Default: grants that name no person. */
  principal?: string | undefined;
}

/**
 * Validate a grant to be stored.
 *
 * @param input - The grant; `grantedAt` missing means `now`.
 * @param now - Epoch ms.
 * @returns The validated grant (known keys only).
 * @throws {InvalidGrantError} With the reason.
 */
export function toGrant(input: GrantInput, now: number): Grant {
  const parsed = parseGrant({ ...input, grantedAt: input.grantedAt ?? now });
  if (!parsed.ok) throw new InvalidGrantError(parsed.reason);
  return parsed.grant;
}

/**
 * The grants that go out for a run in `threadId`.
 *
 * @param grants - Valid grants.
 * @param threadId - The run's thread.
 * @param now - Epoch ms.
 * @param principal - Whose grants. Default: grants that name no person.
 * @returns `always` grants and `thread` grants of `threadId`, unexpired, of `principal`, in input order.
 */
export function selectForThread(grants: readonly Grant[], threadId: string, now: number, principal?: string): Grant[] {
  return grants.filter((grant) => goesOut(grant, threadId, now, principal));
}

/** Whether a grant goes out for a run in `threadId` (see {@link selectForThread}). */
function goesOut(grant: Grant, threadId: string, now: number, principal: string | undefined): boolean {
  return (
    !isExpired(grant, now) && grant.principal === principal && (grant.scope === "always" || grant.threadId === threadId)
  );
}

/**
 * Turn a revoke target into a predicate over grants.
 *
 * @param target - Id, key fields or predicate.
 * @returns The predicate.
 */
export function revokePredicate(target: RevokeTarget): (grant: Grant) => boolean {
  if (typeof target === "function") return target;
  const id = typeof target === "string" ? target : grantId(target);
  return (grant) => grantId(grant) === id;
}

/** Calls listeners; one that throws is reported and does not stop the others. */
export class Listeners {
  readonly #set = new Set<(change: GrantChange) => void>();

  get size(): number {
    return this.#set.size;
  }

  add(listener: (change: GrantChange) => void): () => void {
    this.#set.add(listener);
    return () => {
      this.#set.delete(listener);
    };
  }

  emit(change: GrantChange): void {
    for (const listener of [...this.#set]) {
      try {
        listener(change);
      } catch (error) {
        console.error("kaboo-workflows: a grant store listener threw", error);
      }
    }
  }
}

/**
 * The audit trail a principal's revocations go to: `kaboo:grants:<principal>` (`kaboo:grants:` for
 * grants without one). Every grant store that records revocations uses it, page and server alike.
 * @param principal - Whose grants.
 */
export function grantsAuditThread(principal: string | undefined): string {
  return `kaboo:grants:${principal ?? ""}`;
}

/**
 * Records revoked grants in `audit`: one `revocation` entry per principal, in
 * {@link grantsAuditThread}. Rejects when the trail cannot write (the grants are gone already; the
 * caller's revoke rejects with it, so the person sees that the record failed).
 * @param audit - The trail (nothing is written without one).
 * @param revoked - The grants taken back.
 */
export async function auditRevocations(audit: AuditLog | undefined, revoked: readonly Grant[]): Promise<void> {
  if (!audit || revoked.length === 0) return;
  const byPrincipal = new Map<string, string[]>();
  for (const grant of revoked) {
    const who = grant.principal ?? "";
    byPrincipal.set(who, [...(byPrincipal.get(who) ?? []), grantId(grant)]);
  }
  for (const [who, grantIds] of byPrincipal) await auditRevocation(audit, who || undefined, grantIds);
}

/**
 * Records that one principal's grants were revoked: one `revocation` entry in
 * {@link grantsAuditThread}. Rejects when the trail cannot write.
 * @param audit - The trail.
 * @param principal - Whose grants (`undefined`: grants that name no person).
 * @param grantIds - The grants taken back.
 */
export async function auditRevocation(
  audit: AuditLog,
  principal: string | undefined,
  grantIds: string[],
): Promise<void> {
  await audit.append(grantsAuditThread(principal), {
    kind: "revocation",
    grantIds,
    principal: principal ?? null,
    by: null,
  });
}

/** Options of {@link MemoryGrantStore}. */
export interface MemoryGrantStoreOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Where revocations are recorded: an entry per principal in {@link grantsAuditThread}'s trail for
   * each `revoke` / `revokeAll` that took something back. Default: none.
   */
  audit?: AuditLog;
}

/**
 * A {@link ServerGrantStore} in memory: nothing survives a reload, nothing is shared
 * between tabs. For tests, servers, and pages that should not remember.
 *
 * @example
 * ```ts
 * const store = new MemoryGrantStore();
 * await store.grant({ tool: "search", scope: "always" });
 * ```
 */
export class MemoryGrantStore implements ServerGrantStore, CoversNow {
  readonly #grants = new Map<string, Grant>();
  readonly #listeners = new Listeners();
  readonly #now: () => number;
  readonly #audit: AuditLog | undefined;

  /** @param options - `now` (default `Date.now`), `audit` (default none). */
  constructor(options: MemoryGrantStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#audit = options.audit;
  }

  async grant(input: GrantInput): Promise<Grant> {
    const grant = toGrant(input, this.#now());
    const id = grantId(grant);
    // Delete first so a re-grant moves to the end, like a fresh insertion.
    this.#grants.delete(id);
    this.#grants.set(id, grant);
    this.#listeners.emit({ type: "grant", ids: [id], origin: "local" });
    return { ...grant };
  }

  async list(): Promise<Grant[]> {
    return [...this.#grants.values()].map((grant) => ({ ...grant }));
  }

  async grantsFor(threadId: string, options: GrantsForOptions = {}): Promise<Grant[]> {
    // A subclass's own list() says what its grants are, as before.
    if (this.list !== MemoryGrantStore.prototype.list)
      return selectForThread(await this.list(), threadId, options.now ?? this.#now(), options.principal);
    // Selected, then copied: a copy of only the grants that go out (a caller cannot change the stored ones).
    const now = options.now ?? this.#now();
    const out: Grant[] = [];
    for (const grant of this.#grants.values())
      if (goesOut(grant, threadId, now, options.principal)) out.push({ ...grant });
    return out;
  }

  /**
   * The first grant {@link MemoryGrantStore.grantsFor} would hand out that covers the call (`findGrant`'s rules),
   * a copy, at once; `null` when this store's `grantsFor` or `list` is a subclass's (ask those). For the AI SDK
   * adapter's gate.
   * @internal
   */
  [coverNow](threadId: string, query: GrantQuery): Grant | undefined | null {
    const own = MemoryGrantStore.prototype;
    if (this.grantsFor !== own.grantsFor || this.list !== own.list) return null;
    const now = query.now ?? this.#now();
    for (const grant of this.#grants.values())
      if (goesOut(grant, threadId, now, query.principal) && coversCall(grant, query, now)) return { ...grant };
    return undefined;
  }

  async revoke(target: RevokeTarget): Promise<number> {
    const matches = revokePredicate(target);
    const revoked = [...this.#grants].filter(([, grant]) => matches(grant));
    const ids = revoked.map(([id]) => id);
    for (const id of ids) this.#grants.delete(id);
    if (ids.length) this.#listeners.emit({ type: "revoke", ids, origin: "local" });
    await auditRevocations(
      this.#audit,
      revoked.map(([, grant]) => grant),
    );
    return ids.length;
  }

  async grantsOf(principal: string | undefined): Promise<Grant[]> {
    return (await this.list()).filter((grant) => grant.principal === principal);
  }

  revokePrincipal(principal: string | undefined, tool?: string): Promise<number> {
    return this.revoke((grant) => grant.principal === principal && (tool === undefined || grant.tool === tool));
  }

  async revokeAll(): Promise<void> {
    const revoked = [...this.#grants.values()];
    this.#grants.clear();
    this.#listeners.emit({ type: "clear", ids: [], origin: "local" });
    await auditRevocations(this.#audit, revoked);
  }

  subscribe(listener: (change: GrantChange) => void): () => void {
    return this.#listeners.add(listener);
  }
}
