/**
 * Digests of JSON values for the audit trail: SHA-256 of their canonical JSON, as hex. A leaf module.
 *
 * The SHA-256 is the package's synchronous one (`./sha256.ts`, the execution key's), not
 * `crypto.subtle.digest`: the digest is the same, and an approved call writes several entries, each
 * hashed, where WebCrypto's promise (a thread-pool hop in Node) would cost more than the call itself.
 *
 * @module
 */
import { canonicalJson } from "../shared/canonical-json.js";
import { sha256Hex } from "../shared/sha256.js";

/**
 * The SHA-256 of a JSON value's canonical text (object keys sorted, no whitespace): equal values, equal digests.
 *
 * @param value - A JSON value (`undefined` hashes as `null`).
 * @returns `sha256:` and 64 hex digits.
 * @example
 * ```ts
 * jsonDigest({ b: 1, a: 2 }) === jsonDigest({ a: 2, b: 1 }); // true
 * ```
 */
export function jsonDigest(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value ?? null))}`;
}

/**
 * The SHA-256 (hex) of a value's canonical JSON, without a prefix: what an audit entry's `prev` holds.
 *
 * @param value - A JSON value.
 * @returns 64 hex digits.
 */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
