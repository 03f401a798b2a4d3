import { describe, expect, test } from "vitest";
import { MemoryGrantStore } from "../../src/grants/index.js";
import { MemoryAuditLog } from "../../src/index.js";
import { grantStoreAuditContract, grantStoreContract } from "./store-contract.js";

describe("MemoryGrantStore", () => {
  grantStoreContract((now) => new MemoryGrantStore({ now }));
  grantStoreAuditContract(
    (audit) => new MemoryGrantStore({ audit }),
    () => new MemoryAuditLog(),
  );

  test("defaults to Date.now for grantedAt", async () => {
    const before = Date.now();
    const g = await new MemoryGrantStore().grant({ tool: "pay", scope: "always" });
    expect(g.grantedAt).toBeGreaterThanOrEqual(before);
    expect(g.grantedAt).toBeLessThanOrEqual(Date.now());
  });
});
