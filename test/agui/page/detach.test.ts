/**
 * A view that goes away is not a Stop: `detachActiveRun()` (CopilotKit calls it when the person opens another
 * thread, and before each run) leaves the page's run going, and `connectAgent()` in the same tab follows it live.
 */
import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { detachedMidTransfer, until } from "./detached-page.js";

describe("KabooAgent: a detached view leaves the run going", () => {
  test("detached mid-transfer: the transfer finishes and is recorded as sent, not cancelled", async () => {
    const { bank, sessionStore } = await detachedMidTransfer();
    bank.open();
    await until(() => bank.sent.length === 1);
    await until(() => JSON.stringify(sessionStore).length > 0);
    const record = async () => (await sessionStore.load("t1"))!;
    for (let i = 0; i < 500 && (await record()).run?.status === "running"; i++)
      await new Promise((r) => setTimeout(r, 5));
    const stored = await record();
    expect(stored.run?.status).not.toBe("running");
    expect(JSON.stringify(stored.messages)).toContain("sent 5 to alice");
    expect(JSON.stringify(stored.messages)).not.toMatch(/cancel|cut off/i);
  });

  test("connectAgent() in the same tab follows the detached run live, to its end", async () => {
    const { agent, bank } = await detachedMidTransfer();
    const seen: BaseEvent[] = [];
    const watching = agent.connectAgent({}, { onEvent: ({ event }) => void seen.push(event) });
    await until(() => seen.some((e) => e.type === "RUN_STARTED"));
    bank.open();
    await watching;
    expect(bank.sent).toEqual(["alice"]);
    expect(seen.at(-1)?.type).toBe("RUN_FINISHED");
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining("sent 5 to alice"),
    });
  });

  test("abortRun() while following it stops the detached run (the call in flight finishes and is recorded)", async () => {
    const { agent, bank, sessionStore } = await detachedMidTransfer();
    const watching = agent.connectAgent();
    await new Promise((r) => setTimeout(r, 20));
    agent.abortRun();
    bank.open();
    await watching.catch(() => undefined);
    for (let i = 0; i < 500 && (await sessionStore.load("t1"))?.run?.status === "running"; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect((await sessionStore.load("t1"))?.run?.status).not.toBe("running");
  });
});
