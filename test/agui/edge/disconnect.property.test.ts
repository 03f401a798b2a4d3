/**
 * Property: the disconnect scenario of ./disconnect-scenario.ts (three model turns, two gated
 * transfers, the first approved) interrupted by a client disconnect after a random event of a
 * random request, the client recovering by reattaching or by sending the same resume again. Every
 * interrupted run ends with the uninterrupted run's transcript (ids and times aside), the approved
 * transfer executed exactly once, the denied one never, no call reported as cancelled, and each
 * approval asked once. KABOO_PROPERTY_RUNS raises the count (default 200). The same property runs in
 * workerd and Deno in test/runtimes/disconnect.property.test.ts.
 */
import { describe, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { expectDisconnectProperty } from "./disconnect-property.js";
import { conversation, scenarioAgent, type Cut } from "./disconnect-scenario.js";
import { quietLogger } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 200;

async function world(cut?: Cut) {
  const sent: string[] = [];
  const store = new MemoryThreadStore();
  const handle = createAguiHandler({
    stores: { thread: store },
    agent: () => scenarioAgent((to) => void sent.push(to)),
    logger: quietLogger(),
  });
  const seen = await conversation(handle, "t", cut);
  return { ...seen, sent, record: await store.load("t") };
}

describe("property: a client disconnect at any point of a run at the edge", () => {
  test(`the same transcript, each approved call once, nothing reported cancelled, no question twice (${RUNS} runs)`, async () => {
    await expectDisconnectProperty(world, RUNS);
    // About 10 s alone; several times that on a loaded two-core machine.
  }, 180_000);
});
