/**
 * Property: a stateless handler over a shared ledger. Every resume a client ever sent (each sealed
 * pause with its answer, or another answer) sent again, in any order, some at once: no approved call
 * runs twice, a denied one never runs, and a pause answered one way is refused the other way.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { input } from "../helpers.js";
import { bankHandler, newBank, resumeBody, send, type Turn } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 30;
const say = (text: string) => ({ id: crypto.randomUUID(), role: "user" as const, content: text });

describe("property: replays at a stateless edge with a shared ledger", () => {
  test(`each approved call at most once, a denied one never (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 8 }),
        async (replays) => {
          const bank = newBank();
          const handle = bankHandler(
            bank,
            { trust: { secret: "s3cret" }, stores: { ledger: new MemoryExecutionLedger() } },
            { remember: "once" },
          );
          // Two pauses: bob 5 approved, carol 7 denied.
          const pauses: { turn: Turn; approve: boolean }[] = [];
          let last: Turn | undefined;
          for (const [text, approve] of [
            ["pay bob 5", true],
            ["pay carol 7", false],
          ] as const) {
            const asked = await send(
              handle,
              input({ threadId: "t", messages: [...(last?.messages ?? []), say(text)], state: last?.state ?? {} }),
            );
            pauses.push({ turn: asked, approve });
            last = await send(handle, resumeBody("t", asked, { approved: approve }));
          }
          expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
          const batch: Promise<Turn>[] = [];
          for (const [which, flip, together] of replays) {
            const p = pauses[which % pauses.length] as { turn: Turn; approve: boolean };
            const body = {
              ...resumeBody("t", p.turn, { approved: flip ? !p.approve : p.approve }),
              runId: crypto.randomUUID(),
            };
            const sent = send(handle, body);
            if (together) batch.push(sent);
            else await sent;
          }
          await Promise.all(batch);
          expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
