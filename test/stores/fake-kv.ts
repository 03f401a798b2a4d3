/**
 * An in-memory stand-in for `Deno.Kv` (the part DenoKvThreadStore uses), for Node tests: versionstamps,
 * checked atomic commits, and a switch that makes chosen operations fail as a locked SQLite file does.
 */
import type { KvAtomicLike, KvKeyLike, KvLike } from "../../src/stores/deno-kv.js";

export interface FakeKv extends KvLike {
  /** Returns whether this operation fails "database is locked" (default: never). */
  locked: (op: "get" | "set" | "delete" | "commit", key: KvKeyLike) => boolean;
  /** Operations that failed locked. */
  lockedCount: number;
}

export function fakeKv(): FakeKv {
  const data = new Map<string, { value: unknown; versionstamp: string }>();
  let stamp = 0;
  const id = (key: KvKeyLike) => JSON.stringify(key);
  const fail = (op: "get" | "set" | "delete" | "commit", key: KvKeyLike) => {
    if (!kv.locked(op, key)) return;
    kv.lockedCount++;
    throw new TypeError("database is locked");
  };
  const kv: FakeKv = {
    locked: () => false,
    lockedCount: 0,
    async get(key) {
      fail("get", key);
      const e = data.get(id(key));
      return e
        ? { value: structuredClone(e.value), versionstamp: e.versionstamp }
        : { value: null, versionstamp: null };
    },
    async set(key, value) {
      fail("set", key);
      data.set(id(key), { value: structuredClone(value), versionstamp: String(++stamp) });
    },
    async delete(key) {
      fail("delete", key);
      data.delete(id(key));
    },
    atomic() {
      const checks: { key: KvKeyLike; versionstamp: string | null }[] = [];
      const writes: [KvKeyLike, unknown][] = [];
      const op: KvAtomicLike = {
        check: (...c) => (checks.push(...c), op),
        set: (key, value) => (writes.push([key, value]), op),
        delete: (key) => (writes.push([key, undefined]), op),
        async commit() {
          for (const [key] of writes.length ? writes : [[[] as KvKeyLike]]) fail("commit", key as KvKeyLike);
          if (checks.some((c) => (data.get(id(c.key))?.versionstamp ?? null) !== c.versionstamp)) return { ok: false };
          for (const [key, value] of writes)
            if (value === undefined) data.delete(id(key));
            else data.set(id(key), { value: structuredClone(value), versionstamp: String(++stamp) });
          return { ok: true };
        },
      };
      return op;
    },
  };
  return kv;
}
