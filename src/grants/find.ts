/**
 * Matching a tool call against remembered grants, for the approval gate.
 *
 * Lookups go through a `Map` keyed by exact strings, never through plain-object
 * property access, so tool names or subject keys such as `__proto__`,
 * `constructor` or `toString` are ordinary keys here.
 *
 * @module
 */
import type { Grant, GrantScope } from "./grant.js";

/** What the gate looks up for one tool call. */
export interface GrantQuery {
  /** Exact tool name of the call. */
  tool: string;
  /** The gate rule's subject key for the call; `undefined` when the rule has no subject. */
  subjectKey?: string | undefined;
  /** The run's thread; thread-scoped grants match only this thread. `undefined`: none match. */
  threadId?: string | undefined;
  /** Epoch ms. Default `Date.now()`. */
  now?: number | undefined;
  /** The person the run serves; only grants with the same `principal` match (none: only grants without one). */
  principal?: string | undefined;
  /**
   * Scopes the gate's rule allows *now*. A grant of a wider scope (given while the rule allowed it)
   * does not match. Default: every scope.
   */
  scopes?: readonly GrantScope[] | undefined;
}

/**
 * Whether a grant no longer applies at `now`.
 *
 * @param grant - A validated grant.
 * @param now - Epoch ms. Default `Date.now()`.
 * @returns `true` when `expiresAt` is set and not after `now` (a `now` that is no number, `NaN`, expires it:
 *   a broken clock fails closed).
 */
export function isExpired(grant: Pick<Grant, "expiresAt">, now: number = Date.now()): boolean {
  return grant.expiresAt !== undefined && !(grant.expiresAt > now);
}

function keyOf(tool: string, subjectKey: string | undefined): string {
  // JSON keeps `undefined` (null) apart from the string "null" and from every tool/subject split.
  return JSON.stringify([tool, subjectKey ?? null]);
}

/**
 * A grant store's method that answers at once which grant covers a call: the first of those
 * `grantsFor(threadId, { now: query.now, principal: query.principal })` would hand out that
 * {@link findGrant} would pick, a copy; `null` when the store must be asked through `grantsFor` (a
 * subclass's own). The memory store has it, for the AI SDK adapter's gate (no promise, no copy of
 * every grant that goes out). Not part of the package's API.
 * @internal
 */
export const coverNow: unique symbol = Symbol("kaboo.coverNow");

/** A store with {@link coverNow}. @internal */
export interface CoversNow {
  [coverNow](threadId: string, query: GrantQuery): Grant | undefined | null;
}

/**
 * Whether `grant` covers the call, by the rules of {@link findGrant}.
 * @param grant - A validated grant.
 * @param query - The call.
 * @param now - Epoch ms (`query.now`, or the clock's).
 * @internal
 */
export function coversCall(grant: Grant, query: GrantQuery, now: number): boolean {
  return grant.tool === query.tool && grant.subjectKey === query.subjectKey && applies(grant, query, now);
}

function applies(grant: Grant, query: GrantQuery, now: number): boolean {
  if (isExpired(grant, now) || grant.principal !== query.principal) return false;
  if (query.scopes !== undefined && !query.scopes.includes(grant.scope)) return false;
  if (grant.scope === "always") return true;
  return grant.scope === "thread" && query.threadId !== undefined && grant.threadId === query.threadId;
}

/**
 * Grants indexed by tool and subject, for many lookups against one list
 * (e.g. every gated call of a run). Build it once with {@link indexGrants}.
 */
export class GrantIndex {
  readonly #byKey = new Map<string, Grant[]>();

  /** @param grants - Validated grants (from `parseGrants` and, with a secret, `filterVerified`). */
  constructor(grants: Iterable<Grant>) {
    for (const grant of grants) {
      const key = keyOf(grant.tool, grant.subjectKey);
      const bucket = this.#byKey.get(key);
      if (bucket) bucket.push(grant);
      else this.#byKey.set(key, [grant]);
    }
  }

  /**
   * The first grant (in input order) that covers the call.
   *
   * @param query - The call: tool, subject key, thread, time.
   * @returns The grant, or `undefined` when the call must ask.
   */
  find(query: GrantQuery): Grant | undefined {
    const bucket = this.#byKey.get(keyOf(query.tool, query.subjectKey));
    if (!bucket) return undefined;
    const now = query.now ?? Date.now();
    return bucket.find((grant) => applies(grant, query, now));
  }

  /**
   * Every grant (in input order) that covers the call.
   *
   * @param query - The call.
   * @returns The covering grants; empty when the call must ask.
   */
  findAll(query: GrantQuery): Grant[] {
    const bucket = this.#byKey.get(keyOf(query.tool, query.subjectKey));
    if (!bucket) return [];
    const now = query.now ?? Date.now();
    return bucket.filter((grant) => applies(grant, query, now));
  }
}

/**
 * Index grants for repeated {@link findGrant} calls.
 *
 * @param grants - Validated grants.
 * @returns A {@link GrantIndex}.
 */
export function indexGrants(grants: Iterable<Grant>): GrantIndex {
  return new GrantIndex(grants);
}

/**
 * Find a remembered grant that lets a call run without asking.
 *
 * Rules: the tool name is equal (no globs); the subject key is equal — a grant with
 * no subject key matches only a call with no subject key, and never covers a call
 * that has one (nor the reverse); a `thread` grant matches only the same `threadId`;
 * an `always` grant matches any thread; an expired grant (`expiresAt <= now`) never
 * matches; the grant's `principal` equals the query's (both absent counts as equal); its scope is
 * one of `query.scopes` when given. `grantedAt` in the future is tolerated (clocks of host and page differ).
 *
 * @param grants - Validated grants, or a {@link GrantIndex} built from them. Pass only
 *   the output of `parseGrants` (and `filterVerified` when a secret is configured).
 * @param query - The call.
 * @returns The first covering grant in input order, or `undefined`.
 * @example
 * ```ts
 * const { grants } = parseGrants(forwardedProps.kaboo_grants);
 * const grant = findGrant(grants, { tool: "send_money", subjectKey: "acct:42", threadId });
 * if (!grant) event.interrupt({ name: "kaboo_approval", reason });
 * ```
 */
export function findGrant(grants: readonly Grant[] | GrantIndex, query: GrantQuery): Grant | undefined {
  if (grants instanceof GrantIndex) return grants.find(query);
  // One lookup: a scan costs no more than building an index would.
  const now = query.now ?? Date.now();
  return grants.find((grant) => coversCall(grant, query, now));
}

/**
 * Every grant that covers a call, by the rules of {@link findGrant}.
 *
 * @param grants - Validated grants, or a {@link GrantIndex}.
 * @param query - The call.
 * @returns The covering grants in input order (the first is what `findGrant` returns).
 */
export function findGrants(grants: readonly Grant[] | GrantIndex, query: GrantQuery): Grant[] {
  if (grants instanceof GrantIndex) return grants.findAll(query);
  const now = query.now ?? Date.now();
  return grants.filter(
    (grant) => grant.tool === query.tool && grant.subjectKey === query.subjectKey && applies(grant, query, now),
  );
}
