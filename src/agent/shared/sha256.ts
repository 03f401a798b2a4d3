/**
 * SHA-256 (FIPS 180-4), synchronous, for the execution key. WebCrypto's `crypto.subtle.digest` is
 * asynchronous: Node runs it on its thread pool, and that hop cost about 100 µs of a 250 µs tool call.
 * The key needs a collision-resistant hash of a few hundred bytes, not a fast bulk hash, and keeping
 * SHA-256 keeps every stored `kw1-` key valid (same input, same digest as before).
 *
 * @module
 */

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2).
const K = new Int32Array(64);
// The first 32 bits of the fractional parts of the square roots of the first 8 primes (§5.3.3).
const H0 = new Int32Array(8);
const W = new Int32Array(64);
const encoder = new TextEncoder();

function frac32(x: number): number {
  return ((x - Math.floor(x)) * 2 ** 32) | 0;
}

function initConstants(): void {
  let found = 0;
  for (let n = 2; found < 64; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
    if (!prime) continue;
    if (found < 8) H0[found] = frac32(Math.sqrt(n));
    K[found++] = frac32(Math.cbrt(n));
  }
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}

/** One 64-byte block at `offset` of `bytes` into the state `h`. */
function block(h: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let t = 0; t < 16; t++) {
    const i = offset + t * 4;
    W[t] = (bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!;
  }
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15]!;
    const w2 = W[t - 2]!;
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let hh = h[7]!;
  for (let t = 0; t < 64; t++) {
    const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + hh) | 0;
}

// The two hex digits of each byte value as one 16-bit unit, written through a byte view so the digits
// keep their order on any byte order: one table read and one write per byte of the digest.
const PAIRS = new Uint16Array(256);
const pairDigits = new Uint8Array(PAIRS.buffer);
for (let i = 0; i < 512; i++) pairDigits[i] = "0123456789abcdef".charCodeAt(i & 1 ? (i >> 1) & 15 : i >> 5);
const HEX_OUT = new Uint8Array(64);
const HEX_PAIRS = new Uint16Array(HEX_OUT.buffer);
// UTF-8 (the digits are ASCII): the one encoding every runtime's TextDecoder has.
const ascii = new TextDecoder();
// Reused between calls (the hash is synchronous, so no two calls share them at once). A short text
// is encoded straight into BUF and padded there, so most hashes copy nothing and allocate no array.
const STATE = new Int32Array(8);
const BUF = new Uint8Array(1024 + 72);
const INTO = BUF.subarray(0, 1024);

/**
 * The SHA-256 of `data`, as 64 lowercase hex digits.
 * @param data - The bytes to hash (a string is hashed as its UTF-8 encoding).
 * @returns The digest in hex.
 * @example
 * ```ts
 * sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (K[0] === 0) initConstants();
  let bytes = BUF;
  const done = typeof data === "string" && data.length <= 1024 ? encoder.encodeInto(data, INTO) : undefined;
  let length = done?.written ?? 0;
  if (done?.read !== data.length) {
    const source = typeof data === "string" ? encoder.encode(data) : data;
    length = source.length;
    bytes = new Uint8Array(length + 72);
    bytes.set(source);
  }
  // The padding: a 1 bit, zeros, and the message length in bits (big-endian, 64 bits), to a whole block.
  const end = (length + 72) & ~63;
  for (let i = length; i < end; i++) bytes[i] = 0;
  bytes[length] = 0x80;
  const high = Math.floor(length / 2 ** 29);
  const low = (length << 3) >>> 0;
  for (let i = 0; i < 4; i++) {
    bytes[end - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    bytes[end - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  const h = STATE;
  for (let i = 0; i < 8; i++) h[i] = H0[i]!;
  for (let offset = 0; offset < end; offset += 64) block(h, bytes, offset);
  // The digits as bytes, decoded into one flat string: 32 concatenations made a rope of 32 pieces
  // (about 1 KB of garbage per key) that every Map look-up of the key then flattened.
  for (let i = 0; i < 8; i++) {
    const w = h[i]!;
    HEX_PAIRS[4 * i] = PAIRS[w >>> 24]!;
    HEX_PAIRS[4 * i + 1] = PAIRS[(w >>> 16) & 0xff]!;
    HEX_PAIRS[4 * i + 2] = PAIRS[(w >>> 8) & 0xff]!;
    HEX_PAIRS[4 * i + 3] = PAIRS[w & 0xff]!;
  }
  return ascii.decode(HEX_OUT);
}
