/**
 * SHA-256 digests of texts and JSON values, as lowercase hex (WebCrypto). A leaf module: the audit
 * trail and anything else that fingerprints a value use it.
 *
 * @module
 */
import { canonicalJson } from "./canonical-json.js";

const encoder = new TextEncoder();

/**
 * The SHA-256 of a text (UTF-8), as 64 lowercase hex digits.
 *
 * @param text - What to hash.
 * @returns The hex digest.
 * @example
 * ```ts
 * await sha256Hex("abc"); // "ba7816bf…"
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * The SHA-256 of a JSON value's canonical text ({@link canonicalJson}): equal values, equal digests.
 *
 * @param value - A JSON value (`undefined` hashes as `null`).
 * @returns `sha256:` and 64 hex digits.
 */
export async function jsonDigest(value: unknown): Promise<string> {
  return `sha256:${await sha256Hex(canonicalJson(value ?? null))}`;
}
