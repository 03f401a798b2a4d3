/**
 * Server grant stores: grants kept per person (principal) on the platform's own storage, so every
 * isolate reads the same record and a revocation holds on the next request everywhere. This module
 * holds the {@link ServerGrantStore} over any {@link PrincipalGrantBackend}; the Durable Object and Deno KV
 * backends live beside it.
 *
 * @module
 */
import type { AuditLog } from "../agent/audit/audit.js";
import { grantId, parseGrant, type Grant } from "../grants/grant.js";
import {
  auditRevocation,
  grantsAuditThread,
  Listeners,
  revokePredicate,
  selectForThread,
  toGrant,
  type GrantChange,
  type GrantInput,
  type GrantsForOptions,
  type RevokeTarget,
  type ServerGrantStore,
} from "../grants/store.js";

/** The storage of a principal-keyed grant store. `principal` is `""` for grants that name no person. */
export interface PrincipalGrantBackend {
  /** Every stored grant of one principal (raw: the store validates each). */
  list(principal: string): Promise<unknown[]>;
  /** Stores a grant under its id (replacing one with the same id). */
  put(principal: string, id: string, grant: Grant): Promise<void>;
  /** Removes grants by id; resolves to how many were there. */
  remove(principal: string, ids: readonly string[]): Promise<number>;
  /** Removes every stored entry of one principal, corrupt ones included. */
  clear(principal: string): Promise<void>;
  /** Every principal that ever held a grant here (for `list()`, `revokeAll()` and predicates). */
  principals(): Promise<string[]>;
}

/** Options of a principal-keyed grant store. */
export interface PrincipalGrantStoreOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Where revocations are recorded: an entry per revoke in the trail named
   * `kaboo:grants:<principal>` (`kaboo:grants:` for grants without one). Default: none.
   */
  audit?: AuditLog;
}

export { grantsAuditThread };

/** Which principal a grant id names (the fifth entry of its JSON form), `""` for none. */
function principalOfId(id: string): string | undefined {
  try {
    const parts = JSON.parse(id) as unknown;
    if (!Array.isArray(parts) || parts.length < 4) return undefined;
    return typeof parts[4] === "string" ? parts[4] : "";
  } catch {
    return undefined;
  }
}

/**
 * A {@link ServerGrantStore} whose grants are kept per principal. Reads are never cached: each call goes
 * to the backend, so a revocation made by any isolate counts on the next read everywhere.
 * `subscribe` hears this instance's own changes only.
 */
export class PrincipalGrantStore implements ServerGrantStore {
  readonly #backend: PrincipalGrantBackend;
  readonly #now: () => number;
  readonly #audit: AuditLog | undefined;
  readonly #listeners = new Listeners();

  /**
   * @param backend - Where the grants are.
   * @param options - `now` (default `Date.now`), `audit` (default none).
   */
  constructor(backend: PrincipalGrantBackend, options: PrincipalGrantStoreOptions = {}) {
    this.#backend = backend;
    this.#now = options.now ?? Date.now;
    this.#audit = options.audit;
  }

  async grant(input: GrantInput): Promise<Grant> {
    const grant = toGrant(input, this.#now());
    const id = grantId(grant);
    await this.#backend.put(grant.principal ?? "", id, grant);
    this.#listeners.emit({ type: "grant", ids: [id], origin: "local" });
    return { ...grant };
  }

  async list(): Promise<Grant[]> {
    const all = await Promise.all((await this.#backend.principals()).map((p) => this.#of(p)));
    return all.flat();
  }

  /**
   * Every valid grant of one person (expired ones included), read from that person's record only.
   * @param principal - Whose grants (`undefined`: grants that name no person).
   * @returns The grants.
   */
  grantsOf(principal: string | undefined): Promise<Grant[]> {
    return this.#of(principal ?? "");
  }

  async grantsFor(threadId: string, options: GrantsForOptions = {}): Promise<Grant[]> {
    const grants = await this.#of(options.principal ?? "");
    return selectForThread(grants, threadId, options.now ?? this.#now(), options.principal);
  }

  async revoke(target: RevokeTarget): Promise<number> {
    const id = typeof target === "string" ? target : typeof target === "function" ? undefined : grantId(target);
    if (id !== undefined) {
      const principal = principalOfId(id);
      return principal === undefined ? 0 : this.#remove(principal, [id]);
    }
    const matches = revokePredicate(target);
    let n = 0;
    for (const principal of await this.#backend.principals()) {
      const ids = (await this.#of(principal)).filter(matches).map(grantId);
      if (ids.length) n += await this.#remove(principal, ids);
    }
    return n;
  }

  /**
   * Revokes every grant of one person, or only those for one tool.
   * @param principal - Whose grants (`undefined`: grants that name no person).
   * @param tool - Only this tool's grants. Default: every tool.
   * @returns How many were removed.
   */
  async revokePrincipal(principal: string | undefined, tool?: string): Promise<number> {
    const ids = (await this.#of(principal ?? ""))
      .filter((grant) => tool === undefined || grant.tool === tool)
      .map(grantId);
    return ids.length ? this.#remove(principal ?? "", ids) : 0;
  }

  /** Revokes every grant of every person; each person's revoked grants are an entry of their audit trail. */
  async revokeAll(): Promise<void> {
    for (const principal of await this.#backend.principals()) {
      const ids = (await this.#of(principal)).map(grantId);
      const n = ids.length ? await this.#backend.remove(principal, ids) : 0;
      // Then whatever is left (a corrupt row, a grant written meanwhile): revokeAll leaves nothing.
      await this.#backend.clear(principal);
      if (n > 0 && this.#audit) await auditRevocation(this.#audit, principal === "" ? undefined : principal, ids);
    }
    this.#listeners.emit({ type: "clear", ids: [], origin: "local" });
  }

  subscribe(listener: (change: GrantChange) => void): () => void {
    return this.#listeners.add(listener);
  }

  async #of(principal: string): Promise<Grant[]> {
    const out: Grant[] = [];
    for (const raw of await this.#backend.list(principal)) {
      const parsed = parseGrant(raw);
      // A stored grant of another person (a corrupt or hand-written row) never counts for this one.
      if (parsed.ok && (parsed.grant.principal ?? "") === principal) out.push(parsed.grant);
    }
    return out;
  }

  async #remove(principal: string, ids: string[]): Promise<number> {
    const n = await this.#backend.remove(principal, ids);
    if (n > 0) {
      this.#listeners.emit({ type: "revoke", ids, origin: "local" });
      if (this.#audit) await auditRevocation(this.#audit, principal === "" ? undefined : principal, ids);
    }
    return n;
  }
}
