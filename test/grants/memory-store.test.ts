import { describe, expect, test } from "vitest";
import { MemoryGrantStore, type Grant } from "../../src/grants/index.js";
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

  // grantsFor selects the grants that go out, then copies them (not every grant of every person per call).
  test("grantsFor hands out copies of the selected grants only: mutating them changes nothing stored", async () => {
    const store = new MemoryGrantStore({ now: () => 1 });
    await store.grant({ tool: "pay", scope: "thread", threadId: "t1", subjectKey: "to:bob" });
    await store.grant({ tool: "pay", scope: "thread", threadId: "t2" });
    await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    const [mine, ...more] = await store.grantsFor("t1");
    expect(more).toEqual([]);
    if (!mine) throw new Error("the thread's grant was not handed out");
    mine.threadId = "t2";
    mine.subjectKey = undefined;
    mine.principal = "ann";
    expect(await store.grantsFor("t1")).toEqual([
      { tool: "pay", scope: "thread", threadId: "t1", subjectKey: "to:bob", grantedAt: 1 },
    ]);
    expect((await store.grantsFor("t2")).map((g) => g.subjectKey)).toEqual([undefined]);
    expect((await store.grantsFor("t9", { principal: "ann" })).map((g) => g.scope)).toEqual(["always"]);
  });

  test("grantsFor of a subclass with its own list() selects from that list", async () => {
    class Hiding extends MemoryGrantStore {
      override async list(): Promise<Grant[]> {
        return (await super.list()).filter((g) => g.tool !== "hidden");
      }
    }
    const store = new Hiding({ now: () => 1 });
    await store.grant({ tool: "hidden", scope: "always" });
    await store.grant({ tool: "pay", scope: "always" });
    expect((await store.grantsFor("t1")).map((g) => g.tool)).toEqual(["pay"]);
  });
});
