/**
 * What one request may cost the edge handler: hostile grant lists are read up to a cap and refused
 * with one log line, whatever their length. (Speed itself is measured in bench/request-cost.mjs.)
 */
import { describe, expect, test, vi } from "vitest";
import { signGrant } from "../../../src/grants/signing.js";
import { UserError } from "../../../src/errors.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";
import { input } from "../helpers.js";

const SECRET = "request-bounds-secret";

describe("grants sent by a client", () => {
  test("100,000 {} grants with a secret: one warning for the list, and the run goes on", async () => {
    const log = { warn: vi.fn(), error: vi.fn() };
    const bank = newBank();
    const handle = bankHandler(bank, { secret: SECRET, logger: log });
    const body = input({
      messages: [{ id: "u1", role: "user", content: "pay bob 5" }],
      forwardedProps: { kaboo_grants: Array.from({ length: 100_000 }, () => ({})) },
    });
    const turn = await send(handle, body);
    expect(turn.interrupts).toHaveLength(1);
    const grantLines = log.warn.mock.calls.filter(([message]) => /grant/.test(String(message)));
    expect(grantLines).toHaveLength(1);
    expect(grantLines[0]?.[1]).toMatchObject({
      summary: "256 grants refused (256× tool: must be a string), 99744 not read (over 256)",
    });
  });

  test("a signed grant inside the cap still answers the question; one past maxGrants is not read", async () => {
    const bank = newBank();
    const grant = await signGrant(
      { tool: "transfer", subjectKey: "to:bob", scope: "always", grantedAt: Date.now() },
      SECRET,
    );
    const inside = bankHandler(bank, { secret: SECRET, maxGrants: 3 });
    const sendWith = (grants: unknown[]) =>
      send(
        inside,
        input({
          messages: [{ id: "u1", role: "user", content: "pay bob 5" }],
          forwardedProps: { kaboo_grants: grants },
        }),
      );
    expect((await sendWith([{}, {}, grant])).interrupts).toHaveLength(0);
    expect(bank.transfers).toHaveLength(1);
    expect((await sendWith([{}, {}, {}, grant])).interrupts).toHaveLength(1);
    expect(bank.transfers).toHaveLength(1);
    expect(() => bankHandler(bank, { secret: SECRET, maxGrants: 0 })).toThrow(UserError);
  });

  test("a resume carrying 100,000 [] grants is answered like any other", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { secret: SECRET });
    const { turn } = await pause(handle, "t-grants", "pay bob 5");
    const body = resumeBody("t-grants", turn, { approved: true });
    body.forwardedProps = { kaboo_grants: Array.from({ length: 100_000 }, () => []) };
    const resumed = await send(handle, body);
    expect(resumed.error).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });
});
