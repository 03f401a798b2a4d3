/**
 * The grants a run's answers create, in the page and at the edge: one path, one error policy. A grant
 * store that fails after the approved call ran is reported (logged, CUSTOM kaboo_grant_not_saved),
 * never turned into RUN_ERROR for a run whose call succeeded.
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { runAgui } from "../../../src/agui/core/run.js";
import { GRANT_NOT_SAVED_EVENT, saveNewGrants } from "../../../src/agui/core/new-grants.js";
import { recordDecision } from "../../../src/hooks/approval/run.js";
import type { Logger } from "../../../src/logger.js";
import { capturingLogger } from "../../fixtures/logger.js";
import type { InvocationState } from "../../../src/agent/events.js";
import { MemoryGrantStore, type GrantInput } from "../../../src/grants/store.js";
import { bankRunner } from "../fixtures.js";
import { collect, input, interruptsOf, snap, stateOf, user } from "../helpers.js";
import { bankHandler, newBank, pause, resumeBody, send } from "../edge/fixtures.js";

/** A grant store whose writes fail (a quota, a closed database), with the log lines it caused. */
function failingStore() {
  const store = new MemoryGrantStore();
  store.grant = async (_: GrantInput) => {
    throw new Error("QuotaExceededError: the disk is full");
  };
  return store;
}

function recordingLogger() {
  const logger = capturingLogger();
  return { errors: logger.errors, logger };
}

const notSaved = (events: readonly BaseEvent[]) =>
  events.filter((e) => e.type === EventType.CUSTOM && (e as { name?: string }).name === GRANT_NOT_SAVED_EVENT);

describe("the page: a grant that cannot be saved after the call ran", () => {
  test("the transfer ran once, the run finishes, and the front end is told the decision was not remembered", async () => {
    const ledger = newBank();
    const agent = bankRunner(ledger);
    const grantStore = failingStore();
    const { errors, logger } = recordingLogger();
    const first = await collect(
      runAgui({ agent, grantStore, logger, input: input({ messages: [user("pay dave 1")], forwardedProps: {} }) }),
    );
    const [asked] = interruptsOf(first);
    const resumed = await collect(
      runAgui({
        agent,
        grantStore,
        logger,
        input: input({
          messages: snap(first),
          state: stateOf(first),
          resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true, scope: "always" } }],
        }),
      }),
    );
    expect(ledger.transfers).toEqual([{ to: "dave", amount: 1 }]);
    expect(resumed.some((e) => e.type === EventType.RUN_ERROR)).toBe(false);
    expect(resumed.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    expect(notSaved(resumed)).toEqual([
      expect.objectContaining({
        value: expect.objectContaining({
          tool: "transfer",
          scope: "always",
          reason: expect.stringMatching(/disk is full/),
        }),
      }),
    ]);
    expect(errors).toEqual(["kaboo: could not record a grant"]);
  });

  test("a store that works keeps the grant and says nothing", async () => {
    const ledger = newBank();
    const agent = bankRunner(ledger);
    const grantStore = new MemoryGrantStore();
    const first = await collect(runAgui({ agent, grantStore, input: input({ messages: [user("pay erin 2")] }) }));
    const [asked] = interruptsOf(first);
    const resumed = await collect(
      runAgui({
        agent,
        grantStore,
        input: input({
          messages: snap(first),
          state: stateOf(first),
          resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true, scope: "thread" } }],
        }),
      }),
    );
    expect(notSaved(resumed)).toEqual([]);
    expect(await grantStore.list()).toEqual([
      expect.objectContaining({ tool: "transfer", scope: "thread", threadId: "t1" }),
    ]);
  });
});

describe("the page: a run with a principal (the person using the page)", () => {
  test.each([
    ["recorded when the run ends", undefined],
    ["recorded at a checkpoint (the page's session store)", async () => {}],
  ])(
    "an always answer is remembered for that person (%s): their next run skips the question, another person's does not",
    async (_, onCheckpoint) => {
      const ledger = newBank();
      const agent = bankRunner(ledger);
      const grantStore = new MemoryGrantStore();
      const first = await collect(
        runAgui({
          agent,
          grantStore,
          onCheckpoint,
          principal: "ann",
          input: input({ messages: [user("pay dave 1")] }),
        }),
      );
      const [asked] = interruptsOf(first);
      const resumed = await collect(
        runAgui({
          agent,
          grantStore,
          onCheckpoint,
          principal: "ann",
          input: input({
            messages: snap(first),
            state: stateOf(first),
            resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true, scope: "always" } }],
          }),
        }),
      );
      // One grant, the person's (none without a principal beside it).
      expect(await grantStore.list()).toEqual([expect.objectContaining({ tool: "transfer", principal: "ann" })]);
      const again = (p: string) =>
        collect(
          runAgui({
            agent,
            grantStore,
            principal: p,
            input: input({ messages: [...snap(resumed), user("pay dave 1")], state: stateOf(resumed) }),
          }),
        );
      expect(interruptsOf(await again("ann")) ?? []).toEqual([]);
      expect(ledger.transfers).toEqual([
        { to: "dave", amount: 1 },
        { to: "dave", amount: 1 },
      ]);
      expect(interruptsOf(await again("bob"))).toHaveLength(1);
      expect(ledger.transfers).toHaveLength(2);
    },
  );
});

describe("the edge: the same policy", () => {
  test("a grant store that fails: the call ran, the run finishes, and the client reads kaboo_grant_not_saved", async () => {
    const bank = newBank();
    const { errors, logger } = recordingLogger();
    const handle = bankHandler(bank, {
      trust: { secret: "edge-grants-secret" },
      stores: { grants: failingStore() },
      logger,
    });
    const { turn } = await pause(handle, "t-edge", "pay gus 3");
    const resumed = await send(handle, resumeBody("t-edge", turn, { approved: true, scope: "always" }));
    expect(bank.transfers).toEqual([{ to: "gus", amount: 3 }]);
    expect(resumed.error).toBeUndefined();
    expect(resumed.outcome).toBe("success");
    expect(notSaved(resumed.events)).toEqual([
      expect.objectContaining({ value: expect.objectContaining({ tool: "transfer", scope: "always" }) }),
    ]);
    expect(errors).toContain("kaboo: could not record a grant");
  });
});

async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe("saveNewGrants: the one path that saves a run's grants", () => {
  const decide = (invocationState: InvocationState, to: string) =>
    recordDecision(invocationState, {
      decision: "approved",
      tool: "transfer",
      toolUseId: `call-${to}`,
      subject: { key: to, label: to },
      scope: "always",
    });

  test("a checkpoint saves only what was decided since the last one, and quietly", async () => {
    const invocationState: InvocationState = {};
    const grantStore = new MemoryGrantStore();
    const { errors, logger } = recordingLogger();
    const saved: string[] = [];
    const grant = grantStore.grant.bind(grantStore);
    grantStore.grant = async (g: GrantInput) => {
      saved.push(g.subjectKey ?? "");
      if (g.subjectKey === "carol") throw new Error("QuotaExceededError");
      return grant(g);
    };
    decide(invocationState, "bob");
    const o = { invocationState, threadId: "t1", grantStore, log: logger as Logger };
    expect(await drain(saveNewGrants({ ...o, from: 0, report: false }))).toEqual([]);
    decide(invocationState, "carol");
    // Quiet: carol's failure is neither logged nor an event now.
    expect(await drain(saveNewGrants({ ...o, from: 1, report: false }))).toEqual([]);
    expect(saved).toEqual(["bob", "carol"]);
    expect(errors).toEqual([]);
    // The run's end saves every decision again and reports what still fails.
    const atEnd = await drain(saveNewGrants(o));
    expect(saved).toEqual(["bob", "carol", "bob", "carol"]);
    expect(atEnd).toEqual([
      expect.objectContaining({
        name: GRANT_NOT_SAVED_EVENT,
        value: expect.objectContaining({ subjectLabel: "carol" }),
      }),
    ]);
    expect(errors).toHaveLength(1);
    expect((await grantStore.list()).map((g) => g.subjectKey)).toEqual(["bob"]);
  });
});
