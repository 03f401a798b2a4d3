import { describe, expect, test } from "vitest";
import { SessionExchange } from "../../../src/hooks/approval/session-exchange.js";
import { createSessionExchange, getSessionExchange, SESSION_EXCHANGE_KEY } from "../../../src/agent/run-context.js";

const quiet = () => {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (m: string) => void warnings.push(m), error: () => undefined } };
};

describe("SessionExchange", () => {
  test("created per run, in that run's invocationState only", () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    const ex = createSessionExchange(a, { inbound: { interrupt_state: { version: 1 } }, resuming: true });
    expect(a[SESSION_EXCHANGE_KEY]).toBe(ex);
    expect(getSessionExchange(a)).toBe(ex);
    expect(getSessionExchange(b)).toBeUndefined();
    expect(ex.resuming).toBe(true);
    expect(ex.restored).toBe(false);
    expect(ex.publishesApprovals).toBe(false);
  });

  test("something else under the key is not an exchange", () => {
    expect(getSessionExchange({ [SESSION_EXCHANGE_KEY]: { publishesApprovals: true } })).toBeUndefined();
  });

  test.each([["a string"], [42], [[1, 2]], [{ delegates: "nope" }], [{ delegates: { d: () => 1 } }]])(
    "a malformed inbound snapshot (%j) is reported and the run starts clean",
    (inbound) => {
      const { warnings, logger } = quiet();
      const ex = new SessionExchange(inbound, true, logger);
      expect(ex.inbound).toEqual({});
      expect(ex.delegates).toEqual({});
      expect(warnings).toHaveLength(1);
    },
  );

  test("absent input is no snapshot, without a warning; delegates are copied, not shared", () => {
    const { warnings, logger } = quiet();
    expect(new SessionExchange(undefined, false, logger).inbound).toEqual({});
    expect(new SessionExchange(null, false, logger).inbound).toEqual({});
    const inbound = { delegates: { clerk: { tool_use_id: "t" } } };
    const ex = new SessionExchange(inbound, true, logger);
    ex.delegates.other = 1;
    expect(inbound.delegates).toEqual({ clerk: { tool_use_id: "t" } });
    expect(warnings).toEqual([]);
  });
});
