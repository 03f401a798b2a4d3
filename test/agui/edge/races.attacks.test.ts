/**
 * Requests racing on one paused thread: the same approval twice, an approval and a denial, a new
 * turn, a Stop and reattaches, sent at once in random orders and with a slow tool. Whatever wins,
 * the transfer runs at most once (exactly once when an approval won), the stored transcript holds
 * each message id once and the transfer's result at most once, and the thread is free afterwards.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { bankHandler, newBank, pause, post, resumeBody, send } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 40;
type Kind = "approve" | "approve2" | "deny" | "turn" | "stop" | "watch";

describe("races on a paused thread", () => {
  test(`at most one transfer, a consistent record, a free thread (${RUNS} runs)`, async () => {
    const kinds = fc.constantFrom<Kind>("approve", "approve2", "deny", "turn", "stop", "watch");
    await fc.assert(
      fc.asyncProperty(
        fc.array(kinds, { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 0, max: 5 }),
        async (reqs, delayMs) => {
          const bank = newBank();
          const store = new MemoryThreadStore();
          const handle = bankHandler(
            bank,
            { stores: { thread: store }, trust: { principal: () => "ann" } },
            { delayMs },
          );
          const { turn } = await pause(handle, "t", "pay bob 5");
          const answers: Record<string, unknown> = { approve: { approved: true }, approve2: { approved: true } };
          const one = async (k: Kind) => {
            if (k === "stop") return (await handle(post({ kaboo_cancel: { threadId: "t" } }))).status;
            if (k === "watch") {
              const res = await handle(post({ kaboo_connect: { threadId: "t" } }));
              return res.status === 200 ? (await res.text()).length : res.status;
            }
            if (k === "turn") {
              const say = { id: crypto.randomUUID(), role: "user" as const, content: "hello" };
              return (await send(handle, input({ threadId: "t", messages: [...turn.messages, say] }))).outcome;
            }
            const payload = answers[k] ?? { approved: false };
            return (await send(handle, { ...resumeBody("t", turn, payload), runId: crypto.randomUUID() })).outcome;
          };
          await Promise.all(reqs.map(one));
          expect(bank.transfers.length).toBeLessThanOrEqual(1);
          const record = await store.load("t");
          expect(record.lease).toBeNull();
          const ids = (record.messages as { id: string }[]).map((m) => m.id);
          expect(new Set(ids).size).toBe(ids.length);
          const results = (record.messages as { role: string; content?: unknown }[]).filter(
            (m) => m.role === "tool" && String(m.content).includes("sent 5 to bob"),
          );
          expect(results.length).toBe(bank.transfers.length);
          // Afterwards, the approval sent again runs nothing more.
          await send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() });
          expect(bank.transfers.length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
