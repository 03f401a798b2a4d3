/**
 * Stateless with a shared ledger and no store: the ledger records the answer given to each
 * interrupt, so the same sealed pause sent again with another answer is refused.
 */
import { describe, expect, test } from "vitest";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";

const SECRET = "answers-ledger-secret";

describe("a shared ledger records answers", () => {
  test("denied, then the same pause replayed with approve: refused, and the transfer never runs", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET }, stores: { ledger: new MemoryExecutionLedger() } });
    const { turn } = await pause(handle, "t-deny", "pay mallory 500");
    const denied = await send(handle, resumeBody("t-deny", turn, { approved: false }));
    expect(denied.error).toBeUndefined();
    const replay = await send(handle, {
      ...resumeBody("t-deny", turn, { approved: true }),
      runId: crypto.randomUUID(),
    });
    expect(replay.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(bank.transfers).toEqual([]);
  });

  test("approved, then replayed with deny: refused; the approved call ran once", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET }, stores: { ledger: new MemoryExecutionLedger() } });
    const { turn } = await pause(handle, "t-approve", "pay bob 5");
    await send(handle, resumeBody("t-approve", turn, { approved: true }));
    const replay = await send(handle, {
      ...resumeBody("t-approve", turn, { approved: false }),
      runId: crypto.randomUUID(),
    });
    expect(replay.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });

  test("the same answer sent again goes on and is answered from the ledger (no second run)", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET }, stores: { ledger: new MemoryExecutionLedger() } });
    const { turn } = await pause(handle, "t-same", "pay bob 5");
    const body = resumeBody("t-same", turn, { approved: true });
    await send(handle, body);
    const again = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(again.error).toBeUndefined();
    expect(bank.transfers).toHaveLength(1);
  });

  test("two different answers at the same instant: one is recorded, the other refused; at most one run", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET }, stores: { ledger: new MemoryExecutionLedger() } });
    const { turn } = await pause(handle, "t-race", "pay bob 5");
    const [a, b] = await Promise.all([
      send(handle, resumeBody("t-race", turn, { approved: true })),
      send(handle, resumeBody("t-race", turn, { approved: false })),
    ]);
    const codes = [a.error?.code, b.error?.code].filter(Boolean);
    expect(codes).toHaveLength(1);
    expect(["UNKNOWN_INTERRUPT_ID", "RESUME_IN_PROGRESS"]).toContain(codes[0]);
    expect(bank.transfers.length).toBeLessThanOrEqual(1);
  });
});
