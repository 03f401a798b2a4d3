/** A same-tab watcher of a detached run, with Chromium's own Web Locks and BroadcastChannel: detached at every point of a streamed answer, it shows the text once, whole, and the run's end. */
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../../src/index.js";
import { detachAfterThenWatch } from "./detached-page.js";

const TEXT = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");

describe("a same-tab watcher of a detached run (Chromium)", () => {
  for (const k of [1, 3, 5, 8, 13, 21, 30, 40]) {
    test(`detached after ${k} events: text once, whole, run ends`, async () => {
      const threadId = `detach-${crypto.randomUUID()}`;
      const model = new ScriptedModel({ delayMs: 1, chunkSize: 3, script: () => ({ text: TEXT }) });
      const agent = new KabooAgent({
        threadId,
        agent: () => new Agent({ name: "a", model }),
        sessionStore: new MemorySessionStore(),
        ledger: new MemoryExecutionLedger(),
      });
      agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "hi" });
      const watched = await detachAfterThenWatch(agent, k);
      const starts = watched.filter((e) => e.type === "TEXT_MESSAGE_START");
      expect(starts.length).toBeLessThanOrEqual(1);
      if (starts.length === 1) {
        const text = watched
          .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
          .map((e) => (e as unknown as { delta: string }).delta)
          .join("");
        expect(text).toBe(TEXT);
      }
      expect(agent.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: TEXT });
      expect(watched.at(-1)?.type).toBe("RUN_FINISHED");
    });
  }
});
