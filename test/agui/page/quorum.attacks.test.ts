/**
 * Four eyes in the page, attacked through the persona switch (`KabooAgent({ principal })` as a
 * function): the requester approving her own request, one approver approving twice, an answer
 * naming no person, and a second tab of the same thread answering the same round at once. The wire
 * runs exactly once, after two different eligible people approved.
 */
import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, MemoryExecutionLedger, ScriptedModel, tool } from "../../../src/index.js";
import { user } from "../fixtures.js";

function world() {
  const wires: string[] = [];
  let who: string | undefined = "ann";
  const ledger = new MemoryExecutionLedger();
  const sessionStore = new MemorySessionStore();
  const runner = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults, lastUserText }) =>
          lastToolResults.length
            ? { text: "done" }
            : /wire (\w+)/.test(lastUserText)
              ? { toolCalls: [{ name: "wire", input: { to: /wire (\w+)/.exec(lastUserText)?.[1] ?? "" } }] }
              : { text: "hi" },
      }),
      tools: [
        tool({
          name: "wire",
          description: "Wire money.",
          inputSchema: z.object({ to: z.string() }),
          callback: ({ to }) => {
            wires.push(to);
            return `wired ${to}`;
          },
        }),
      ],
      hooks: [
        new InterruptHook([
          {
            pattern: "wire",
            approvals: { required: 2, eligible: (p) => ["bob", "carol"].includes(p), forbidRequester: true },
          },
        ]),
      ],
      ledger,
    });
  const tab = () => {
    const events: BaseEvent[] = [];
    const agent = new KabooAgent({ threadId: "t", agent: runner, sessionStore, ledger, principal: () => who });
    agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
    return { agent, events };
  };
  const as = (p: string | undefined) => {
    who = p;
  };
  const approve = async (agent: KabooAgent) => {
    const [q] = agent.pendingInterrupts;
    if (!q) throw new Error("no open question");
    await agent.runAgent({ resume: [{ interruptId: q.id, status: "resolved", payload: { approved: true } }] });
  };
  return { wires, tab, as, approve };
}

const approvedBy = (agent: KabooAgent) =>
  (
    agent.pendingInterrupts[0]?.metadata as { kaboo?: { approvals?: { approvedBy: { principal: string }[] } } }
  )?.kaboo?.approvals?.approvedBy.map((a) => a.principal);

describe("four eyes in the page, attacked", () => {
  test("the requester, the same approver twice and no one never make the quorum; two people do, once", async () => {
    const w = world();
    const { agent } = w.tab();
    agent.addMessage(user("wire mallory"));
    await agent.runAgent();
    expect(agent.pendingInterrupts).toHaveLength(1);
    await w.approve(agent); // ann, the requester
    w.as("bob");
    await w.approve(agent);
    expect(approvedBy(agent)).toEqual(["bob"]);
    await w.approve(agent); // bob again
    w.as(undefined);
    await w.approve(agent).catch(() => undefined); // an answer naming no person
    w.as("ann");
    await w.approve(agent).catch(() => undefined);
    expect(w.wires).toEqual([]);
    expect(approvedBy(agent)).toEqual(["bob"]);
    w.as("carol");
    await w.approve(agent);
    expect(w.wires).toEqual(["mallory"]);
    expect(agent.pendingInterrupts).toEqual([]);
  });

  test("the last approval sent from two tabs at once runs the wire once", async () => {
    const w = world();
    const first = w.tab();
    first.agent.addMessage(user("wire mallory"));
    await first.agent.runAgent();
    w.as("bob");
    await w.approve(first.agent);
    const second = w.tab();
    await second.agent.connectAgent();
    w.as("carol");
    await Promise.all([w.approve(first.agent), w.approve(second.agent)].map((p) => p.catch(() => undefined)));
    expect(w.wires).toEqual(["mallory"]);
  });
});
