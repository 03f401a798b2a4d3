/**
 * Grants in Deno KV, per principal (`[prefix, "grant", principal, id]`), so every isolate of a Deno
 * Deploy project (and every process on one local database) reads and revokes one record.
 *
 * @module
 */
import type { Grant } from "../../grants/grant.js";
import {
  PrincipalGrantStore,
  type PrincipalGrantBackend,
  type PrincipalGrantStoreOptions,
} from "../principal-grants.js";
import { StoreBusyError, isLocked, whileBusy } from "../busy.js";
import { ThreadStoreError } from "../thread-store.js";
import { sha256Hex } from "../../agent/shared/sha256.js";

type Key = readonly (string | number)[];

/** The part of `Deno.Kv` the grant store uses. */
export interface KvGrantsLike {
  set(key: Key, value: unknown): Promise<unknown>;
  delete(key: Key): Promise<void>;
  list(selector: { prefix: Key }): AsyncIterable<{ key: Key; value: unknown }>;
}

/** Options of {@link DenoKvGrantStore}. */
export interface DenoKvGrantStoreOptions extends PrincipalGrantStoreOptions {
  /** First key part. Default `"kaboo"`. */
  prefix?: string;
}

/**
 * A server {@link grants!GrantStore | GrantStore} on Deno KV. Give it to `createAguiHandler({ stores: { grants } })`.
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv();
 * const grantStore = new DenoKvGrantStore(kv);
 * Deno.serve(createAguiHandler({ agent, stores: { thread: new DenoKvThreadStore(kv), grants: grantStore }, trust: { secret, principal } }));
 * ```
 */
export class DenoKvGrantStore extends PrincipalGrantStore {
  /**
   * @param kv - An open `Deno.Kv`.
   * @param options - `prefix` (default `"kaboo"`), `now` (default `Date.now`), `audit` (default none).
   */
  constructor(kv: KvGrantsLike, options: DenoKvGrantStoreOptions = {}) {
    super(kvBackend(kv, options.prefix ?? "kaboo"), options);
  }
}

function kvBackend(kv: KvGrantsLike, prefix: string): PrincipalGrantBackend {
  // A locked local database (another process writing) is waited out; each step is safe to repeat.
  const guard = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    try {
      return await whileBusy(step, isLocked, what);
    } catch (cause) {
      if (cause instanceof StoreBusyError) throw cause;
      throw new ThreadStoreError(`Deno KV failed (${what}).`, { cause });
    }
  };
  const base = (principal: string): Key => [prefix, "grant", keyPart(principal)];
  const rows = async (principal: string) => {
    const out: { key: Key; value: unknown }[] = [];
    for await (const row of kv.list({ prefix: base(principal) })) out.push(row);
    return out;
  };
  return {
    list: (principal) => guard("grant read", async () => (await rows(principal)).map((r) => parseOrNull(r.value))),
    put: (principal, id, grant: Grant) =>
      guard("grant write", async () => {
        // The name is kept as the value: its key part may be a digest.
        await kv.set([prefix, "grant_principal", keyPart(principal)], principal);
        await kv.set([...base(principal), keyPart(id)], JSON.stringify(grant));
      }),
    remove: (principal, ids) =>
      guard("grant revoke", async () => {
        const present = new Set((await rows(principal)).map((r) => r.key[r.key.length - 1]));
        const hits = ids.filter((id) => present.has(keyPart(id)));
        await Promise.all(hits.map((id) => kv.delete([...base(principal), keyPart(id)])));
        return hits.length;
      }),
    clear: (principal) =>
      guard("grant revoke", async () => {
        await Promise.all((await rows(principal)).map((r) => kv.delete(r.key)));
      }),
    principals: () =>
      guard("grant read", async () => {
        const out: string[] = [];
        for await (const row of kv.list({ prefix: [prefix, "grant_principal"] })) {
          // Rows written before names were kept as values hold `true`: their key part is the name.
          const name = typeof row.value === "string" ? row.value : row.key[row.key.length - 1];
          if (typeof name === "string") out.push(name);
        }
        return out;
      }),
  };
}

/** Longest key part kept as it is, in UTF-8 bytes; Deno KV refuses a whole key over 2 KiB. */
const MAX_KEY_PART_BYTES = 256;
const encoder = new TextEncoder();

/**
 * A name as a key part: itself when short, else `#` and its SHA-256 (a grant id holds its subject,
 * up to 4,096 characters). A short name shaped like a digest part is digested too, so two names
 * never share a key part.
 */
function keyPart(name: string): string {
  if (encoder.encode(name).length <= MAX_KEY_PART_BYTES && !/^#[0-9a-f]{64}$/.test(name)) return name;
  return `#${sha256Hex(name)}`;
}

function parseOrNull(value: unknown): unknown {
  if (typeof value !== "string") return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}
