/**
 * `ApproverCheckEvent` from the hooks entry: a hook of the app's own, beside the package's gate, can
 * narrow who may answer a four-eyes question. Its verdict is what the edge obeys, so a person the
 * app's rule refuses is turned away at the door and the question stays open for the others.
 */
import { expect, test } from "vitest";
import { ApproverCheckEvent } from "../../../src/hooks/index.js";
import { type HookProvider, ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { resumeBody, send } from "./fixtures.js";
import { fourEyesEdge } from "./four-eyes.js";

/** One approval, never the requester's. */
const oneApprover = { required: 1, forbidRequester: true };

/** The app's own rule: nobody from the "contractors" list approves wires, whatever the gate says. */
class NoContractors implements HookProvider {
  readonly asked: string[] = [];
  registerHooks(registry: Parameters<HookProvider["registerHooks"]>[0]): void {
    registry.addCallback(ApproverCheckEvent, (event) => {
      this.asked.push(event.principal);
      if (event.principal.startsWith("contractor-")) event.verdict = { ok: false, why: "contractors never approve" };
    });
  }
}

test("an app hook answering ApproverCheckEvent refuses a person the package's gate would let approve", async () => {
  const rule = new NoContractors();
  const s = fourEyesEdge({
    handler: { stores: { thread: new MemoryThreadStore() } },
    bank: () => ({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "transfer", input: { to: "x" } }] },
      }),
      payeeOnly: true,
      gate: { remember: false, approvals: oneApprover, agentName: "" },
      hooks: [rule],
    }),
  });
  const asked = await s.ask("t", "wire x");
  expect(asked.outcome).toBe("interrupt");

  const refused = await s.answer("t", asked, "contractor-eve");
  expect(refused.error?.code).toBe("THREAD_FORBIDDEN");
  expect(s.transfers).toEqual([]);
  expect(rule.asked).toEqual(["contractor-eve"]);

  const bob = await s.answer("t", asked, "bob");
  expect(bob.outcome).toBe("success");
  expect(s.transfers).toEqual([{ to: "x" }]);
});

test("an error from the owner's run after an approver's answer reaches the approver as its code only", async () => {
  const { handle } = fourEyesEdge({
    handler: { stores: { thread: new MemoryThreadStore() } },
    bank: () => ({
      model: new ScriptedModel({
        script: ({ lastToolResults }) => {
          if (lastToolResults.length) throw new Error("owner's note: account 4711 is overdrawn");
          return { toolCalls: [{ name: "transfer", input: { to: "x" } }] };
        },
      }),
      payeeOnly: true,
      gate: { remember: false, approvals: oneApprover, agentName: "" },
    }),
  });
  const asked = await send(handle, input({ threadId: "t", messages: [{ id: "m1", role: "user", content: "go" }] }), {
    "x-user": "ann",
  });
  const bob = await send(
    handle,
    { ...resumeBody("t", asked, { approved: true }), runId: "r-bob" },
    { "x-user": "bob" },
  );
  expect(bob.error?.code).toBeDefined();
  expect(JSON.stringify(bob.events)).not.toContain("4711");
  // The owner, reattaching to that run, sees the whole error.
  const owner = await send(handle, { kaboo_connect: { threadId: "t", runId: "r-bob" } } as never, { "x-user": "ann" });
  expect(JSON.stringify(owner.events)).toContain("4711");
});
