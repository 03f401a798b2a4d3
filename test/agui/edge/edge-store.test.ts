/**
 * The edge handler with a thread store: the attacks of the edge issue, each of which ran a
 * transfer twice (or ran what nobody approved) on the stateless handler.
 */
import { describe, expect, test } from "vitest";
import type { JsonObject } from "../../../src/agent/messages/messages.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { deferred } from "../../agent/helpers.js";
import { createAguiHandler } from "../../../src/agui/index.js";
import { BeforeToolCallEvent, ScriptedModel } from "../../../src/index.js";
import { bankAgent } from "../../fixtures/bank.js";
import { heldCall, bankHandler, newBank, pause, quietLogger, resumeBody, send } from "./fixtures.js";
import { input } from "../helpers.js";

const approve = { approved: true };

describe("with a store, two concurrent resumes of one interrupt run it once", () => {
  test.each([0, 50])("a %i ms tool, 20 trials: one resume runs, the other runs nothing", async (delayMs) => {
    for (let trial = 0; trial < 20; trial++) {
      const bank = newBank();
      const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } }, { delayMs });
      const threadId = `t-${trial}`;
      const { turn } = await pause(handle, threadId, "pay ann 5");
      const body = resumeBody(threadId, turn, approve);
      const [a, b] = await Promise.all([send(handle, body), send(handle, { ...body, runId: crypto.randomUUID() })]);
      expect(bank.transfers).toEqual([{ to: "ann", amount: 5 }]);
      const loser = a.error ? a : b.error ? b : a.outcome === b.outcome ? b : a;
      // The loser either says a resume is in progress or streams the recorded outcome.
      if (loser.error) expect(loser.error.code).toBe("RESUME_IN_PROGRESS");
      else expect(loser.outcome).toBe("success");
    }
  });
});

describe("with a store, a replay runs nothing", () => {
  test("the same resume sent again answers with the recorded outcome", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay bob 7");
    const body = resumeBody("t", turn, approve);
    const first = await send(handle, body);
    expect(first.outcome).toBe("success");
    const again = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(again.error).toBeUndefined();
    expect(again.outcome).toBe("success");
    expect(again.messages).toEqual(first.messages);
    expect(bank.transfers).toHaveLength(1);
  });

  test("the same resume under another threadId runs nothing", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay cleo 3");
    const body = resumeBody("t", turn, approve);
    await send(handle, body);
    for (const threadId of ["other", "t2", ""]) {
      const r = await send(handle, { ...body, threadId: threadId || "x", runId: crypto.randomUUID() });
      expect(r.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    }
    // Also before the real resume: another thread cannot answer this one's interrupt.
    const { turn: paused } = await pause(handle, "u", "pay cleo 4");
    const elsewhere = await send(handle, { ...resumeBody("u", paused, approve), threadId: "not-u" });
    expect(elsewhere.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(bank.transfers).toEqual([{ to: "cleo", amount: 3 }]);
  });

  test("a batch that failed part way (a hook threw on b after a ran) is retried: b runs, a does not run again", async () => {
    const bank = newBank();
    const sent = bank.sent;
    let hookDown = true;
    const handle = createAguiHandler({
      stores: { thread: new MemoryThreadStore() },
      logger: quietLogger(),
      agent: () => {
        const both = [
          { name: "transfer", input: { to: "gus" }, id: "c1" },
          { name: "transfer", input: { to: "hal" }, id: "c2" },
        ];
        const model = new ScriptedModel({
          script: (t) => (t.lastToolResults.length ? { text: "ok" } : { toolCalls: both }),
        });
        const agent = bankAgent(bank, {
          model,
          payeeOnly: true,
          toolExecutor: "sequential",
          gate: { remember: false, agentName: "" },
        });
        agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
          const answered = [...e.agent.interruptState.interrupts.values()].some((i) => i.response !== undefined);
          if (answered && hookDown && (e.toolUse.input as { to: string }).to === "hal") {
            hookDown = false;
            throw new Error("limit check down");
          }
        });
        return agent;
      },
    });
    const first = await send(
      handle,
      input({ threadId: "t", messages: [{ id: "u", role: "user", content: "pay both" }] }),
    );
    const resume = first.interrupts.map((i) => ({ interruptId: i.id, status: "resolved" as const, payload: approve }));
    const body = input({ threadId: "t", messages: first.messages, state: first.state, resume });
    expect((await send(handle, body)).error?.code).toBe("TOOL_BATCH_FAILED");
    expect(sent).toEqual(["gus"]);
    const retry = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(retry.error).toBeUndefined();
    expect(sent).toEqual(["gus", "hal"]);
  });

  test("an interrupt id named like an Object.prototype key is unknown, not a replay", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay gus 2");
    for (const id of ["constructor", "__proto__", "toString"]) {
      const r = await send(handle, resumeBody("t", turn, approve, id));
      expect(r.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    }
    expect(bank.transfers).toEqual([]);
  });

  test("an older snapshot replayed after the thread moved on runs nothing", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay dan 1");
    const old = resumeBody("t", turn, approve);
    const done = await send(handle, old);
    await send(
      handle,
      input({ threadId: "t", messages: [...done.messages, { id: "m2", role: "user", content: "hello" }] }),
    );
    const replay = await send(handle, { ...old, runId: crypto.randomUUID() });
    expect(replay.error).toBeUndefined();
    expect(bank.transfers).toHaveLength(1);
  });

  test("a retry after a RUN_ERROR that came after the tool does not run it again", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay eve 9");
    bank.failAfterTool = true;
    const body = resumeBody("t", turn, approve);
    const failed = await send(handle, body);
    expect(failed.error?.code).toBeDefined();
    expect(bank.transfers).toHaveLength(1);
    await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(bank.transfers).toHaveLength(1);
  });

  test("a retry after that RUN_ERROR with another answer (the model's arguments, not the edit) runs nothing", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay eve 9");
    bank.failAfterTool = true;
    const failed = await send(handle, resumeBody("t", turn, { approved: true, editedArgs: { to: "eve", amount: 5 } }));
    expect(failed.error?.code).toBeDefined();
    expect(bank.transfers).toEqual([{ to: "eve", amount: 5 }]);
    // The pause was spent by the failed run: the same interrupt cannot be answered again.
    const retry = await send(handle, resumeBody("t", turn, approve));
    expect(retry.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(bank.transfers).toEqual([{ to: "eve", amount: 5 }]);
  });
});

describe("with a store, the client's kaboo_session decides nothing", () => {
  /** The paused session as the client got it, with `change` applied. */
  async function forged(change: (session: JsonObject) => void) {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay fay 5");
    const state = structuredClone(turn.state) as { kaboo_session: JsonObject };
    change(state.kaboo_session);
    return { bank, handle, turn: { ...turn, state } };
  }
  const call = (s: JsonObject) =>
    (s.interrupt_state as { context: { toolUseMessage: { content: { input: JsonObject; toolUseId: string }[] } } })
      .context.toolUseMessage.content[0]!;
  const interrupts = (s: JsonObject) => (s.interrupt_state as { interrupts: Record<string, JsonObject> }).interrupts;

  test("a transfer pre-approved inside the state does not run on a decoy's cancelled answer", async () => {
    const { bank, handle, turn } = await forged((s) => {
      const [id] = Object.keys(interrupts(s));
      interrupts(s)[id!]!.response = { approved: true };
      interrupts(s)["hook:beforeToolCall:decoy:bank:kaboo_approval"] = {
        id: "hook:beforeToolCall:decoy:bank:kaboo_approval",
        name: "x",
      };
    });
    const r = await send(handle, resumeBody("t", turn, "cancelled", "hook:beforeToolCall:decoy:bank:kaboo_approval"));
    expect(r.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(bank.transfers).toEqual([]);
  });

  test("a call the model never made (an un-gated balance) is not run", async () => {
    const { bank, handle, turn } = await forged((s) => {
      const c = call(s) as unknown as JsonObject;
      (
        s.interrupt_state as { context: { toolUseMessage: { content: JsonObject[] } } }
      ).context.toolUseMessage.content.push({
        ...c,
        name: "balance",
        toolUseId: "injected",
        input: { account: "someone-else" },
      });
    });
    await send(handle, resumeBody("t", turn, { approved: false }));
    expect(bank.balances).toEqual([]);
  });

  test("the arguments that run are the ones shown, not ones edited into the state", async () => {
    const { bank, handle, turn } = await forged((s) => {
      call(s).input.amount = 5000;
      for (const i of Object.values(interrupts(s))) ((i.reason as JsonObject).input as JsonObject).amount = 5000;
    });
    await send(handle, resumeBody("t", turn, approve));
    expect(bank.transfers).toEqual([{ to: "fay", amount: 5 }]);
  });

  test("expiresAt comes from the store: moving it to 2099 does not revive an expired request", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } }, { ttlSeconds: 0.05 });
    const { turn } = await pause(handle, "t", "pay gil 5");
    const state = structuredClone(turn.state) as { kaboo_session: JsonObject };
    for (const i of Object.values(
      (state.kaboo_session.interrupt_state as { interrupts: Record<string, JsonObject> }).interrupts,
    ))
      (i.reason as JsonObject).expiresAt = "2099-01-01T00:00:00.000Z";
    await new Promise((r) => setTimeout(r, 120));
    const r = await send(handle, resumeBody("t", { ...turn, state }, approve));
    expect(r.error?.code).toBe("INTERRUPT_EXPIRED");
    expect(bank.transfers).toEqual([]);
  });

  test("a thread belongs to its principal: another person's resume runs nothing", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, {
      stores: { thread: new MemoryThreadStore() },
      trust: { principal: (req) => req.headers.get("x-user") ?? "" },
    });
    const { turn } = await pause(handle, "t", "pay hal 5", { "x-user": "ann" });
    const r = await send(handle, resumeBody("t", turn, approve), { "x-user": "bob" });
    expect(r.error?.code).toBe("THREAD_FORBIDDEN");
    expect(bank.transfers).toEqual([]);
    await send(handle, resumeBody("t", turn, approve), { "x-user": "ann" });
    expect(bank.transfers).toEqual([{ to: "hal", amount: 5 }]);
  });
});

describe("with a store, the ordinary turns", () => {
  test("approve, deny, and a reload that sends nothing but the answer", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } });
    const { turn } = await pause(handle, "t", "pay ivy 2");
    // A reload: a client that lost its messages and state still resumes from the store.
    const reloaded = await send(handle, { ...resumeBody("t", turn, approve), messages: [], state: {} });
    expect(reloaded.outcome).toBe("success");
    expect(reloaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const { turn: second } = await pause(handle, "t2", "pay jo 3");
    const denied = await send(handle, resumeBody("t2", second, { approved: false }));
    expect(denied.outcome).toBe("success");
    expect(bank.transfers).toEqual([{ to: "ivy", amount: 2 }]);
  });
});

describe("with a store, a thread has one run at a time", () => {
  test("a new turn while another run holds the thread → RUN_ERROR THREAD_BUSY, nothing of it runs", async () => {
    const bank = newBank();
    // The resume holds the thread once its call has started: wait for that, not for a fixed time
    // (under load the resume may not have claimed the thread after a few milliseconds).
    const { started, release, hold } = heldCall();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore() } }, { hold });
    const { turn } = await pause(handle, "t", "pay kai 1");
    const resuming = send(handle, resumeBody("t", turn, approve));
    await started;
    const other = await send(
      handle,
      input({ threadId: "t", messages: [{ id: "u2", role: "user", content: "balance kai" }] }),
    );
    expect(other.error?.code).toBe("THREAD_BUSY");
    release();
    expect((await resuming).outcome).toBe("success");
    expect(bank.balances).toEqual([]);
    expect(bank.transfers).toHaveLength(1);
  });

  test("a live run renews its hold: a slow call does not let another run take the thread", async () => {
    const bank = newBank();
    const { started, release, hold } = heldCall();
    // Leases long enough that a loaded machine's late timer does not let one run out under a live run.
    const handle = bankHandler(
      bank,
      { stores: { thread: new MemoryThreadStore() }, timing: { runLeaseMs: 200 } },
      { hold },
    );
    const { turn } = await pause(handle, "t", "pay lou 2");
    const body = resumeBody("t", turn, approve);
    const slow = send(handle, body);
    await started;
    // Several leases long: a run that lives keeps its thread however long it takes.
    await new Promise((r) => setTimeout(r, 700));
    const other = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(other.error?.code).toBe("RESUME_IN_PROGRESS");
    release();
    expect((await slow).outcome).toBe("success");
    expect(bank.transfers).toEqual([{ to: "lou", amount: 2 }]);
  });

  test("a run that could not renew its hold and was taken over saves nothing (THREAD_CONFLICT); the call ran once", async () => {
    const bank = newBank();
    let release = () => {};
    const held = new Promise<void>((ok) => (release = ok));
    const started = deferred();
    let calls = 0;
    const hold = () => {
      if (calls++ > 0) return Promise.resolve();
      started.resolve();
      return held;
    };
    // The slow run's renewals cannot reach the store (as when its isolate is cut off): its hold runs out.
    const store = new MemoryThreadStore();
    let cutOff: string | undefined;
    const partitioned: ThreadStore = {
      load: (id) => store.load(id),
      ledger: (id) => store.ledger(id),
      compareAndSet: async (id, v, data) => {
        if (cutOff !== undefined && data.lease?.runId === cutOff) throw new Error("unreachable");
        return store.compareAndSet(id, v, data);
      },
    };
    const handle = bankHandler(bank, { stores: { thread: partitioned }, timing: { runLeaseMs: 10 } }, { hold });
    const { turn } = await pause(handle, "t", "pay lou 2");
    const body = resumeBody("t", turn, approve);
    const slow = send(handle, body);
    await started.promise;
    cutOff = body.runId;
    await new Promise((r) => setTimeout(r, 30));
    const taker = await send(handle, { ...body, runId: crypto.randomUUID() });
    expect(taker.outcome).toBe("success");
    cutOff = undefined;
    release();
    const first = await slow;
    expect(first.error?.code).toBe("THREAD_CONFLICT");
    expect(bank.transfers).toEqual([{ to: "lou", amount: 2 }]);
  });
});
