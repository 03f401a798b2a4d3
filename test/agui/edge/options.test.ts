/**
 * The handler's options in groups (stores, trust, limits, timing): the run mode is derived in one
 * place, a contradictory combination is refused with a clear error, and an option of 0.1's flat bag is
 * named with where it went.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler, type AguiHandlerOptions } from "../../../src/agui/index.js";
import { resolveHandlerOptions } from "../../../src/agui/edge/resolve-options.js";
import { MemoryExecutionLedger } from "../../../src/agent/ledger/memory-ledger.js";
import { UserError } from "../../../src/errors.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { bankHandler, newBank as edgeBank, pause } from "./fixtures.js";

const agent = () => bankAgent(newBank());

describe("the run mode, derived once", () => {
  test("a thread store is 'stored', a secret alone 'sealed', neither in development 'insecure-development'", () => {
    expect(resolveHandlerOptions({ agent, stores: { thread: new MemoryThreadStore() } }).mode).toBe("stored");
    expect(
      resolveHandlerOptions({ agent, stores: { thread: new MemoryThreadStore() }, trust: { secret: "s" } }).mode,
    ).toBe("stored");
    expect(resolveHandlerOptions({ agent, trust: { secret: "s" } }).mode).toBe("sealed");
    expect(resolveHandlerOptions({ agent, trust: { insecureDevelopmentMode: true } }).mode).toBe(
      "insecure-development",
    );
  });

  test("neither a store nor a secret nor the development flag refuses to start, saying what to set", () => {
    expect(() => createAguiHandler({ agent })).toThrow(/`stores.thread`.*`trust.secret`.*insecureDevelopmentMode/s);
  });

  test("the groups reach the handler: a limit of `limits` answers 413", async () => {
    const handle = bankHandler(edgeBank(), { trust: { secret: "s" }, limits: { maxBodyBytes: 64 } });
    const res = await handle(new Request("http://edge.test/agui", { method: "POST", body: "x".repeat(200) }));
    expect(res.status).toBe(413);
  });

  test("a thread store from `stores` holds the thread: the pause is recorded in it", async () => {
    const store = new MemoryThreadStore();
    const handle = bankHandler(edgeBank(), { stores: { thread: store } });
    const { turn } = await pause(handle, "t", "pay bob 5");
    expect(turn.interrupts.length).toBe(1);
    expect((await store.load("t")).session).toBeTruthy();
  });
});

describe("contradictions are refused with a clear error", () => {
  test.each<[string, AguiHandlerOptions, RegExp]>([
    [
      "a ledger beside a thread store (the store brings its own)",
      { agent, stores: { thread: new MemoryThreadStore(), ledger: new MemoryExecutionLedger() } },
      /stores.ledger.*without a thread store/,
    ],
    [
      "the development mode with a secret",
      { agent, trust: { secret: "s", insecureDevelopmentMode: true } },
      /insecureDevelopmentMode.*neither/,
    ],
    [
      "the development mode with a store",
      { agent, stores: { thread: new MemoryThreadStore() }, trust: { insecureDevelopmentMode: true } },
      /insecureDevelopmentMode.*neither/,
    ],
    [
      "unsigned client grants with a secret",
      { agent, trust: { secret: "s", acceptUnsignedGrants: true } },
      /acceptUnsignedGrants.*only without/,
    ],
    [
      "unsigned client grants with a grant store",
      {
        agent,
        stores: { grants: new MemoryGrantStore() },
        trust: { insecureDevelopmentMode: true, acceptUnsignedGrants: true },
      },
      /acceptUnsignedGrants.*only without/,
    ],
  ])("%s", (_, options, message) => {
    expect(() => createAguiHandler(options)).toThrow(UserError);
    expect(() => createAguiHandler(options)).toThrow(message);
  });
});

describe("an option of 0.1's flat bag, or an unknown one", () => {
  test.each([
    ["store", "stores.thread"],
    ["grantStore", "stores.grants"],
    ["secret", "trust.secret"],
    ["principal", "trust.principal"],
    ["maxBodyBytes", "limits.maxBodyBytes"],
    ["runLeaseMs", "timing.runLeaseMs"],
  ])("`%s` is named with its new place, `%s`", (key, place) => {
    const options = { agent, trust: { secret: "s" }, [key]: 1 } as unknown as AguiHandlerOptions;
    expect(() => createAguiHandler(options)).toThrow(`\`${key}\` is now \`${place}\``);
  });

  test("an unknown key, in a group or at the top, is refused by name", () => {
    const inGroup = { agent, trust: { secret: "s", secrte: "x" } } as unknown as AguiHandlerOptions;
    expect(() => createAguiHandler(inGroup)).toThrow("unknown option `trust.secrte`");
    const top = { agent, trust: { secret: "s" }, storez: {} } as unknown as AguiHandlerOptions;
    expect(() => createAguiHandler(top)).toThrow("unknown option `storez`");
    const notObject = { agent, limits: 5 } as unknown as AguiHandlerOptions;
    expect(() => createAguiHandler(notObject)).toThrow("`limits` must be an object");
  });
});
