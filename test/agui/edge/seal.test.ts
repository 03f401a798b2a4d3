/** Sealed sessions: only what the handler sealed, for that thread, with that secret, opens. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { JsonObject } from "../../../src/agent/messages/messages.js";
import { openSession, sealSession } from "../../../src/agui/edge/trust/seal.js";

const SECRET = "seal-secret";
const session = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), {
  minKeys: 1,
}) as fc.Arbitrary<JsonObject>;

describe("sealed sessions", () => {
  test("any session opens unchanged for its own thread, whatever its key order", async () => {
    await fc.assert(
      fc.asyncProperty(session, fc.string({ minLength: 1, maxLength: 20 }), async (s, threadId) => {
        const sealed = await sealSession(s, threadId, SECRET);
        const reordered = Object.fromEntries(
          Object.entries(JSON.parse(JSON.stringify(sealed)) as JsonObject).reverse(),
        );
        const opened = await openSession(reordered, threadId, SECRET);
        expect(opened).toEqual({ session: JSON.parse(JSON.stringify(s)) });
      }),
      { numRuns: 60 },
    );
  });

  test("any change to the session, another thread or another secret is refused", async () => {
    await fc.assert(
      fc.asyncProperty(session, fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), async (s, key, value) => {
        const sealed = await sealSession(s, "t", SECRET);
        const changed = { ...sealed, [key === "seal" ? "seal_" : key]: value };
        const same =
          JSON.stringify(changed[key === "seal" ? "seal_" : key]) ===
          JSON.stringify(sealed[key === "seal" ? "seal_" : key]);
        if (!same) expect(await openSession(changed, "t", SECRET)).toHaveProperty("reason");
        expect(await openSession(sealed, "t2", SECRET)).toHaveProperty("reason");
        expect(await openSession(sealed, "t", "another secret")).toHaveProperty("reason");
      }),
      { numRuns: 60 },
    );
  });

  test.each([
    ["an unsealed session", { interrupt_state: {} }],
    ["a seal of another version", { interrupt_state: {}, seal: "v9.AAAA" }],
    ["a malformed seal", { interrupt_state: {}, seal: "v1.!!" }],
    ["not an object", "session"],
    ["an array", []],
  ])("%s is refused with a reason", async (_, value) => {
    expect(await openSession(value, "t", SECRET)).toHaveProperty("reason");
  });
});
