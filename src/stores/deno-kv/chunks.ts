/**
 * The part of Deno KV the stores use (structural types, no Deno types needed), and values larger
 * than Deno KV's 64 KiB limit stored as chunks under one base key.
 *
 * @module
 */

/** A Deno KV key. */
export type KvKeyLike = readonly (string | number)[];

/** The part of `Deno.AtomicOperation` this store uses. */
export interface KvAtomicLike {
  check(...checks: { key: KvKeyLike; versionstamp: string | null }[]): KvAtomicLike;
  set(key: KvKeyLike, value: unknown): KvAtomicLike;
  delete(key: KvKeyLike): KvAtomicLike;
  commit(): Promise<{ ok: boolean }>;
}

/** The part of `Deno.Kv` this store uses. */
export interface KvLike {
  get(key: KvKeyLike): Promise<{ value: unknown; versionstamp: string | null }>;
  set(key: KvKeyLike, value: unknown): Promise<unknown>;
  delete(key: KvKeyLike): Promise<void>;
  atomic(): KvAtomicLike;
}

// Below Deno KV's 64 KiB value limit, with room for the structured-clone framing.
const CHUNK_BYTES = 60_000;

/**
 * Writes bytes as chunks under `base`.
 *
 * @param kv - The KV.
 * @param base - The key the chunks are numbered under.
 * @param bytes - What to write.
 * @returns How many chunks were written.
 */
export async function writeChunks(kv: KvLike, base: KvKeyLike, bytes: Uint8Array): Promise<number> {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  await Promise.all(
    Array.from({ length: chunks }, (_, i) => kv.set([...base, i], bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES))),
  );
  return chunks;
}

/**
 * Reads chunks written by {@link writeChunks}.
 *
 * @param kv - The KV.
 * @param base - Their base key.
 * @param chunks - How many there are.
 * @returns The chunks joined, or `undefined` when one is missing (its generation was replaced).
 */
export async function readChunks(kv: KvLike, base: KvKeyLike, chunks: number): Promise<Uint8Array | undefined> {
  const parts = await Promise.all(Array.from({ length: chunks }, (_, i) => kv.get([...base, i])));
  if (parts.some((p) => !(p.value instanceof Uint8Array))) return undefined;
  const out = new Uint8Array(parts.reduce((n, p) => n + (p.value as Uint8Array).length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p.value as Uint8Array, at);
    at += (p.value as Uint8Array).length;
  }
  return out;
}

/**
 * Deletes chunks written by {@link writeChunks}.
 *
 * @param kv - The KV.
 * @param base - Their base key.
 * @param chunks - How many there are.
 */
export async function deleteChunks(kv: KvLike, base: KvKeyLike, chunks: number): Promise<void> {
  await Promise.all(Array.from({ length: chunks }, (_, i) => kv.delete([...base, i])));
}
