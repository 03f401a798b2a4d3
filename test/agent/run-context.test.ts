import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { InvalidRunContextError, KabooError } from "../../src/index.js";
import { createSessionExchange, getSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import {
  DELEGATION_ID_KEY,
  forwardedPropsWithGrants,
  GRANTS_PROP,
  grantsIn,
  privateRunKey,
  runContext,
  SESSION_EXCHANGE_KEY,
  STREAM_PATH_KEY,
  THREAD_ID_KEY,
} from "../../src/agent/run-context.js";
import type { ExecutionLedger } from "../../src/agent/ledger/ledger.js";

describe("run context", () => {
  test("each key reads back what its writer stored, under the documented wire name", () => {
    const state: Record<string, unknown> = {};
    runContext.threadId.set(state, "t1");
    runContext.runId.set(state, "r1");
    runContext.streamPath.set(state, "team.research#2");
    runContext.delegationId.set(state, "call_7");
    runContext.forwardedProps.set(state, { plan: "pro" });
    runContext.sharedState.set(state, { cart: [] });
    runContext.contextItems.set(state, [{ description: "d", value: "v" }]);
    expect(state).toEqual({
      [THREAD_ID_KEY]: "t1",
      runId: "r1",
      [STREAM_PATH_KEY]: "team.research#2",
      [DELEGATION_ID_KEY]: "call_7",
      forwardedProps: { plan: "pro" },
      sharedState: { cart: [] },
      aguiContext: [{ description: "d", value: "v" }],
    });
    expect(runContext.threadId.get(state)).toBe("t1");
    expect(runContext.streamPath.get(state)).toBe("team.research#2");
    expect(runContext.forwardedProps.get(state)).toEqual({ plan: "pro" });
    const child = runContext.streamPath.with(state, "team.review");
    expect(runContext.streamPath.get(child)).toBe("team.review");
    expect(runContext.streamPath.get(state)).toBe("team.research#2");
    expect(runContext.threadId.get(child)).toBe("t1");
    runContext.delegationId.delete(state);
    expect(runContext.delegationId.get(state)).toBeUndefined();
  });

  test("absent keys read as undefined from both readers", () => {
    for (const key of Object.values(runContext)) {
      expect(key.get({})).toBeUndefined();
      expect(key.find({})).toBeUndefined();
    }
  });

  const wrongValues: [keyof typeof runContext, unknown][] = [
    ["threadId", 42],
    ["runId", { id: "r" }],
    ["streamPath", ["a"]],
    ["delegationId", null],
    ["sessionExchange", { publishesApprovals: true }],
    ["forwardedProps", "x"],
    ["forwardedProps", [1]],
    ["sharedState", 7],
    ["contextItems", { description: "d" }],
    ["executionLedger", { claim: "no" }],
  ];
  test.each(wrongValues)(
    "a bad %s (%j) gives the typed error from get() and reads as absent from find()",
    (name, value) => {
      const key = runContext[name];
      const state: Record<string, unknown> = { [key.key as string]: value };
      let thrown: unknown;
      try {
        key.get(state);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidRunContextError);
      expect(thrown).toBeInstanceOf(KabooError);
      expect((thrown as InvalidRunContextError).code).toBe("INVALID_RUN_CONTEXT");
      expect((thrown as InvalidRunContextError).key).toBe(key.key);
      expect(key.find(state)).toBeUndefined();
      expect(key.raw(state)).toBe(value);
    },
  );

  test("no value of the wrong type ever crashes a reader: it is either the value or the typed error", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(runContext)), fc.anything(), (name, value) => {
        const key = runContext[name as keyof typeof runContext];
        const state = { [key.key]: value } as Record<string, unknown>;
        try {
          key.get(state);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRunContextError);
        }
        key.find(state);
      }),
    );
  });

  test("a module's private slot: own symbol, never in JSON, shared by a child run's copy, typed on read", () => {
    const slot = privateRunKey("things", (v): v is Map<string, number> => v instanceof Map);
    const other = privateRunKey("things", (v): v is Map<string, number> => v instanceof Map);
    const state: Record<string, unknown> = { threadId: "t" };
    const map = new Map([["a", 1]]);
    slot.set(state, map);
    expect(JSON.stringify(state)).toBe('{"threadId":"t"}');
    expect(other.get(state)).toBeUndefined();
    expect(slot.get(runContext.streamPath.with(state, "x"))).toBe(map);
    (state as Record<symbol, unknown>)[slot.key as symbol] = "not a map";
    expect(() => slot.get(state)).toThrow(InvalidRunContextError);
    expect(slot.find(state)).toBeUndefined();
  });

  test("the execution ledger key holds a ledger", () => {
    const state: Record<string, unknown> = {};
    const ledger: ExecutionLedger = {
      claim: async () => ({ status: "claimed", token: "k", leaseExpiresAt: 0 }),
      settle: async () => undefined,
      release: async () => undefined,
    };
    runContext.executionLedger.set(state, ledger);
    expect(runContext.executionLedger.get(state)).toBe(ledger);
  });

  test("the session exchange is created per run and found only where it was created", () => {
    const a: Record<string, unknown> = {};
    const ex = createSessionExchange(a, { resuming: true });
    expect(a[SESSION_EXCHANGE_KEY]).toBe(ex);
    expect(getSessionExchange(a)).toBe(ex);
    expect(getSessionExchange({})).toBeUndefined();
    expect(() => runContext.sessionExchange.get({ [SESSION_EXCHANGE_KEY]: {} })).toThrow(InvalidRunContextError);
  });

  test("grants in: sent (even empty) or not sent", () => {
    expect(grantsIn({})).toEqual({ sent: false });
    expect(grantsIn({ forwardedProps: "x" })).toEqual({ sent: false });
    expect(grantsIn({ forwardedProps: { other: 1 } })).toEqual({ sent: false });
    expect(grantsIn({ forwardedProps: { [GRANTS_PROP]: [] } })).toEqual({ sent: true, value: [] });
    expect(grantsIn({ forwardedProps: { [GRANTS_PROP]: "junk" } })).toEqual({ sent: true, value: "junk" });
  });

  test("grants into forwarded props: a fresh object, the client's props kept", () => {
    const props = { plan: "pro", [GRANTS_PROP]: ["forged"] };
    const out = forwardedPropsWithGrants(props, []);
    expect(out).toEqual({ plan: "pro", [GRANTS_PROP]: [] });
    expect(props[GRANTS_PROP]).toEqual(["forged"]);
    expect(forwardedPropsWithGrants(props)).toEqual(props);
    expect(forwardedPropsWithGrants(props)).not.toBe(props);
    expect(forwardedPropsWithGrants("nope")).toEqual({});
    expect(forwardedPropsWithGrants([1, 2], [])).toEqual({ [GRANTS_PROP]: [] });
  });
});
