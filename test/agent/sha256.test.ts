import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { canonicalJson } from "../../src/agent/shared/canonical-json.js";
import { sha256Hex } from "../../src/agent/shared/sha256.js";
import { executionKey } from "../../src/index.js";
import { callText, keyOfCall } from "../../src/agent/ledger/ledger.js";

async function webCryptoHex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("sha256Hex", () => {
  test("gives the FIPS 180-4 digests of the standard test messages", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  test("matches WebCrypto at every length around the block and padding boundaries", async () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(sha256Hex(bytes), `length ${n}`).toBe(await webCryptoHex(bytes));
    }
  });

  test("matches WebCrypto for text and bytes around the 1 KiB a text is encoded in place up to", async () => {
    for (const n of [1015, 1016, 1023, 1024, 1025, 1100, 3000]) {
      const ascii = "x".repeat(n);
      // The same length in UTF-16 units, more in UTF-8: the encoded text passes 1 KiB before the string does.
      const wide = `${"é".repeat(Math.min(n, 600))}${"y".repeat(Math.max(0, n - 600))}`;
      for (const text of [ascii, wide])
        expect(sha256Hex(text), `${n} units`).toBe(await webCryptoHex(new TextEncoder().encode(text)));
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
      expect(sha256Hex(bytes), `${n} bytes`).toBe(await webCryptoHex(bytes));
    }
    // A long hash between short ones leaves nothing behind in the reused buffer.
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test("matches WebCrypto for any string, hashed as UTF-8", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 300 }), async (text) => {
        expect(sha256Hex(text)).toBe(await webCryptoHex(new TextEncoder().encode(text)));
      }),
      { numRuns: 200 },
    );
  });
});

describe("executionKey stays the key earlier versions stored", () => {
  test("a key computed with WebCrypto before the synchronous hash still matches (no migration)", () => {
    // Computed by the WebCrypto implementation this one replaced, for the same parts.
    const parts = { threadId: "thread-1", toolUseId: "call_1", input: { to: "bob", cents: 500, note: "für Ωmega 🚀" } };
    expect(executionKey(parts)).toBe("kw1-944cc88bee13222e87871465f7cac666944b0f0edc5bf4893f2247cdf88d2a9b");
  });

  test("is kw1- and the SHA-256 of the canonical JSON of [thread, call id, arguments], for any parts", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (threadId, toolUseId, input) => {
          const text = canonicalJson([threadId, toolUseId, input ?? null]);
          expect(executionKey({ threadId, toolUseId, input })).toBe(`kw1-${sha256Hex(text)}`);
          // The runner's name for the call in the memory ledger is that text, and starts with "[".
          expect(callText({ threadId, toolUseId, input })).toBe(text);
          expect(text[0]).toBe("[");
          expect(keyOfCall(text)).toBe(`kw1-${sha256Hex(text)}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("is computed synchronously (no thread-pool hop on the hot path)", () => {
    expect(typeof executionKey({ threadId: "t", toolUseId: "c", input: {} })).toBe("string");
  });
});
