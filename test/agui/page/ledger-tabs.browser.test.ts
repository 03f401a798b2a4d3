/** Two tabs of one page, in real Chromium: the same approved call resumed in both at once runs once (IndexedDB + Web Locks). */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { runAgui } from "../../../src/agui/core/run.js";
import { IndexedDbExecutionLedger } from "../../../src/grants/index.js";
import { bankRunner } from "../fixtures.js";
import { newBank } from "../../fixtures/bank.js";
import { collect, input, interruptsOf, snap, stateOf, user } from "../helpers.js";

describe("the same approval answered in two tabs", () => {
  test("runs the transfer once; the other tab gets CALL_IN_PROGRESS or the recorded result", async () => {
    const bank = newBank();
    const dbName = `tabs-${crypto.randomUUID()}`;
    const threadId = crypto.randomUUID();
    const first = await collect(
      runAgui({ agent: bankRunner(bank), input: input({ threadId, messages: [user("pay gina 4")] }) }),
    );
    const resume = [
      { interruptId: interruptsOf(first)[0]!.id, status: "resolved" as const, payload: { approved: true } },
    ];
    const resumed = () => input({ threadId, messages: snap(first), state: stateOf(first), resume });
    // Each tab has its own connection to the page's ledger database.
    const tab = () =>
      runAgui({ agent: bankRunner(bank), ledger: new IndexedDbExecutionLedger({ dbName }), input: resumed() });
    const [a, b] = await Promise.all([collect(tab(), false), collect(tab(), false)]);
    expect(bank.transfers).toEqual([{ to: "gina", amount: 4 }]);
    for (const events of [a, b]) {
      const last = events.at(-1) as unknown as { type: string; code?: string };
      if (last.type === EventType.RUN_ERROR) expect(last.code).toBe("CALL_IN_PROGRESS");
      else expect(JSON.stringify(events)).toContain("sent 4 to gina");
    }
    // A third tab, later, gets the recorded result.
    const c = await collect(tab());
    expect(bank.transfers).toHaveLength(1);
    expect(JSON.stringify(c)).toContain("sent 4 to gina");
  });

  test("KabooAgent claims in IndexedDB by default: a reloaded page (a new KabooAgent) does not run the call again", async () => {
    const bank = newBank();
    const threadId = crypto.randomUUID();
    const page = () => new KabooAgent({ threadId, agent: () => bankRunner(bank) });
    const one = page();
    one.addMessage(user("pay olga 7"));
    await one.runAgent();
    const interruptId = one.pendingInterrupts[0]!.id;
    const state = one.state;
    const messages = one.messages;
    await one.runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
    expect(bank.transfers).toHaveLength(1);
    // The reloaded page holds the paused snapshot it had saved (a stale client) and resumes it.
    const two = page();
    two.setState(state);
    two.setMessages(messages);
    await two
      .runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] })
      .catch(() => undefined);
    expect(bank.transfers).toHaveLength(1);
    expect(JSON.stringify(two.messages)).toContain("sent 7 to olga");
  });
});
