/**
 * Signed grants, for hosts that run the agent on a server or at the edge: the
 * page keeps the grants, but only the server knows the secret, so a page (or
 * anyone in between) cannot mint or widen a grant. HMAC-SHA256 through WebCrypto.
 *
 * @module
 */
import { UserError } from "../kaboo-error.js";
import { findGrants, type GrantIndex, type GrantQuery } from "./find.js";
import type { Grant } from "./grant.js";

/** A secret as text (UTF-8 encoded) or an HMAC-SHA256 `CryptoKey` with `sign`/`verify` usages. */
export type GrantSecret = string | CryptoKey;

const encoder = new TextEncoder();
// Imported keys per secret text: importKey is far slower than a verify. Bounded,
// and it holds derived keys only, never per-run data.
const keyCache = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_MAX = 32;

/** The signature version a grant is signed under: 2 when it names a person, else 1. */
function versionOf(grant: Grant): 1 | 2 {
  return grant.principal === undefined ? 1 : 2;
}

/**
 * The canonical, versioned text a grant's signature covers: `v1\n` then tool, subjectKey,
 * subjectLabel, scope, threadId, grantedAt, expiresAt, one per line, each `JSON.stringify`-encoded,
 * `null` when absent. A grant with a `principal` uses `v2\n` and adds the principal as a last line.
 * The signature itself is excluded. JSON encoding keeps a newline inside a value from forging a
 * field boundary.
 *
 * @param grant - The grant.
 * @returns The text to sign.
 */
export function canonicalGrant(grant: Grant): string {
  const fields: unknown[] = [
    grant.tool,
    grant.subjectKey,
    grant.subjectLabel,
    grant.scope,
    grant.threadId,
    grant.grantedAt,
    grant.expiresAt,
  ];
  const version = versionOf(grant);
  if (version === 2) fields.push(grant.principal);
  return `v${version}\n${fields.map((field) => JSON.stringify(field ?? null)).join("\n")}`;
}

/**
 * The HMAC key for a secret, imported once per secret text (cached, at most 32 texts).
 *
 * @param secret - Text (UTF-8) or a `CryptoKey`, returned as is.
 * @returns The key.
 * @throws {UserError} When the text is empty.
 */
export async function importGrantKey(secret: GrantSecret): Promise<CryptoKey> {
  return importSecret(secret);
}

function importSecret(secret: GrantSecret): Promise<CryptoKey> {
  if (typeof secret !== "string") return Promise.resolve(secret);
  if (secret.length === 0) throw new UserError("The grant secret must not be empty.");
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value as string);
    keyCache.set(secret, key);
  }
  return key;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * HMAC-SHA256 of a text under a secret, as base64url (the primitive grants and sealed sessions share).
 *
 * @param text - What to sign (UTF-8).
 * @param secret - Text or an HMAC-SHA256 `CryptoKey`.
 * @returns 43 base64url characters.
 * @throws {UserError} When the secret is empty or cannot sign.
 */
export async function hmacText(text: string, secret: GrantSecret): Promise<string> {
  const key = await importSecret(secret);
  try {
    return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
  } catch (cause) {
    throw new UserError('The secret cannot sign (an HMAC SHA-256 key with the "sign" usage is needed).', { cause });
  }
}

/**
 * Checks an {@link hmacText} MAC in constant time.
 *
 * @param text - What was signed.
 * @param mac - The base64url MAC.
 * @param secret - Text or an HMAC-SHA256 `CryptoKey`.
 * @returns `true` when it verifies; `false` for a wrong or malformed MAC.
 * @throws {UserError} When the secret is empty or cannot verify.
 */
export async function verifyHmacText(text: string, mac: string, secret: GrantSecret): Promise<boolean> {
  const key = await importSecret(secret);
  const bytes = fromBase64Url(mac);
  if (bytes?.length !== 32) return false;
  try {
    return await crypto.subtle.verify("HMAC", key, bytes, encoder.encode(text));
  } catch (cause) {
    throw new UserError('The secret cannot verify (an HMAC SHA-256 key with the "verify" usage is needed).', { cause });
  }
}

/**
 * Sign a grant (on the server, after a person chose `thread` or `always`).
 *
 * @param grant - A validated grant; any old signature is replaced.
 * @param secret - Text or an HMAC-SHA256 `CryptoKey`.
 * @returns A copy with `signature: "v1.<base64url>"` (`v2.` when the grant has a `principal`).
 * @throws {UserError} When the secret is an empty string or a key that cannot sign.
 * @example
 * ```ts
 * const signed = await signGrant({ tool: "send_money", subjectKey: "acct:42", scope: "always", grantedAt: Date.now() }, env.GRANT_SECRET);
 * ```
 */
export async function signGrant(grant: Grant, secret: GrantSecret): Promise<Grant> {
  const key = await importSecret(secret);
  let mac: ArrayBuffer;
  try {
    mac = await crypto.subtle.sign("HMAC", key, encoder.encode(canonicalGrant(grant)));
  } catch (cause) {
    throw new UserError('The grant secret cannot sign (an HMAC SHA-256 key with the "sign" usage is needed).', {
      cause,
    });
  }
  return { ...grant, signature: `v${versionOf(grant)}.${toBase64Url(new Uint8Array(mac))}` };
}

/** Why {@link verifyGrant} refused a grant. */
export type GrantRejection = "unsigned" | "malformed" | "unsupported-version" | "mismatch";

/**
 * Check a grant's signature and say why it fails.
 *
 * @param grant - A validated grant.
 * @param secret - The secret it was signed with.
 * @returns `undefined` when the signature verifies, otherwise the reason.
 * @throws {UserError} When the secret is unusable (a caller mistake, not a bad grant).
 */
export async function checkGrantSignature(grant: Grant, secret: GrantSecret): Promise<GrantRejection | undefined> {
  // The key first, so an unusable secret fails loudly even when no grant is signed.
  const key = await importSecret(secret);
  const signature = grant.signature;
  if (signature === undefined || signature === "") return "unsigned";
  // A grant is checked under the version its own fields call for: a v1 signature never covered a
  // principal, so a principal added to a v1-signed grant fails here.
  const prefix = `v${versionOf(grant)}.`;
  if (!signature.startsWith(prefix)) return /^v\d+\./.test(signature) ? "unsupported-version" : "malformed";
  const mac = fromBase64Url(signature.slice(prefix.length));
  if (mac?.length !== 32) return "malformed";
  let ok: boolean;
  try {
    // subtle.verify compares in constant time.
    ok = await crypto.subtle.verify("HMAC", key, mac, encoder.encode(canonicalGrant(grant)));
  } catch (cause) {
    throw new UserError('The grant secret cannot verify (an HMAC SHA-256 key with the "verify" usage is needed).', {
      cause,
    });
  }
  return ok ? undefined : "mismatch";
}

/**
 * Whether a grant's signature verifies with `secret`.
 *
 * @param grant - A validated grant.
 * @param secret - Text or an HMAC-SHA256 `CryptoKey`.
 * @returns `true` only for an unaltered grant signed with this secret.
 */
export async function verifyGrant(grant: Grant, secret: GrantSecret): Promise<boolean> {
  return (await checkGrantSignature(grant, secret)) === undefined;
}

/** A grant {@link filterVerified} refused. */
export interface UnverifiedGrant {
  grant: Grant;
  /** Machine-readable reason. */
  code: GrantRejection;
  /** Readable reason. */
  reason: string;
}

/**
 * Readable text for a rejection code.
 *
 * @param code - From {@link checkGrantSignature}.
 * @returns E.g. "the grant has no signature".
 */
export function grantRejectionReason(code: GrantRejection): string {
  return REASONS[code];
}

const REASONS: Record<GrantRejection, string> = {
  unsigned: "the grant has no signature",
  malformed: "the signature is not a v1 base64url HMAC-SHA256",
  "unsupported-version": "the signature has an unsupported version",
  mismatch: "the signature does not match (forged, altered, or signed with another secret)",
};

/**
 * Keep only grants whose signature verifies, for a gate configured with a secret.
 * Forged, altered and unsigned grants are returned in `rejected` (to be reported),
 * never in `accepted`.
 *
 * @param grants - Validated grants (from `parseGrants`).
 * @param secret - Text or an HMAC-SHA256 `CryptoKey`.
 * @returns `accepted` in input order, and `rejected` with reasons.
 * @throws {UserError} When the secret is unusable.
 * @example
 * ```ts
 * const { grants } = parseGrants(props.kaboo_grants);
 * const { accepted, rejected } = await filterVerified(grants, secret);
 * ```
 */
export async function filterVerified(
  grants: readonly Grant[],
  secret: GrantSecret,
): Promise<{ accepted: Grant[]; rejected: UnverifiedGrant[] }> {
  const key = await importSecret(secret);
  const checks = await Promise.all(grants.map((grant) => checkGrantSignature(grant, key)));
  const accepted: Grant[] = [];
  const rejected: UnverifiedGrant[] = [];
  checks.forEach((code, i) => {
    const grant = grants[i] as Grant;
    if (code === undefined) accepted.push(grant);
    else rejected.push({ grant, code, reason: REASONS[code] });
  });
  return { accepted, rejected };
}

/**
 * {@link findGrant} for a gate with a secret, verifying only the grants that would
 * cover the call instead of every grant of the run (each verify is an HMAC).
 * Returns the same grant as `findGrant(filterVerified(grants).accepted, query)`.
 *
 * @param grants - Validated, not yet verified grants (from `parseGrants`), or an index of them.
 * @param query - The call.
 * @param secret - The secret grants must be signed with.
 * @returns The first covering grant whose signature verifies (or `undefined`: ask), and the
 *   covering grants that failed verification before it, to report.
 * @throws {UserError} When `secret` is unusable.
 * @example
 * ```ts
 * const { grant, rejected } = await findVerifiedGrant(grants, { tool, subjectKey, threadId }, secret);
 * ```
 */
export async function findVerifiedGrant(
  grants: readonly Grant[] | GrantIndex,
  query: GrantQuery,
  secret: GrantSecret,
): Promise<{ grant: Grant | undefined; rejected: UnverifiedGrant[] }> {
  const key = await importGrantKey(secret);
  const rejected: UnverifiedGrant[] = [];
  for (const candidate of findGrants(grants, query)) {
    const code = await checkGrantSignature(candidate, key);
    if (code === undefined) return { grant: candidate, rejected };
    rejected.push({ grant: candidate, code, reason: grantRejectionReason(code) });
  }
  return { grant: undefined, rejected };
}
