/**
 * Four-eyes approvals through the edge handler with a thread store: each approver resumes with their
 * own credentials; one who does not own the thread may answer its four-eyes question and nothing
 * else; the interrupt's metadata shows who approved so far; approvals racing from two people at
 * once count once each, and the call runs once, after the second.
 */
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, verifyAuditTrail } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { auditKinds } from "../../agent/audit-helpers.js";
import { input } from "../helpers.js";
import { resumeBody, send } from "./fixtures.js";
import { approvedBy, fourEyesEdge } from "./four-eyes.js";

function setup() {
  const audit = new MemoryAuditLog();
  return { audit, ...fourEyesEdge({ handler: { stores: { thread: new MemoryThreadStore(), audit } } }) };
}

describe("four eyes at the edge", () => {
  test("each approver answers with their own credentials; the call runs once, after the second approval", async () => {
    const s = setup();
    const asked = await s.ask("t");
    expect(asked.outcome).toBe("interrupt");
    expect(approvedBy(asked)).toEqual([]);

    const own = await s.answer("t", asked, "ann");
    expect(own.outcome).toBe("interrupt");
    expect(approvedBy(own)).toEqual([]);

    const bob = await s.answer("t", own, "bob");
    expect(bob.outcome).toBe("interrupt");
    expect(approvedBy(bob)).toEqual(["bob"]);
    expect(s.transfers).toEqual([]);

    const carol = await s.answer("t", bob, "carol");
    expect(carol.outcome).toBe("success");
    expect(s.transfers).toEqual([{ to: "mallory", amount: 20000 }]);

    const entries = await s.audit.entries("t");
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
    expect(auditKinds(entries).filter((k) => k === "execution:claimed")).toHaveLength(1);
    expect(entries.flatMap((e) => (e.kind === "decision" ? [[e.principal, e.decision]] : []))).toEqual([
      ["ann", "refused"],
      ["bob", "approved"],
      ["carol", "approved"],
    ]);
  });

  test("an approver who does not own the thread may answer only its four-eyes question", async () => {
    const s = setup();
    const asked = await s.ask("t");
    const more = input({
      threadId: "t",
      messages: [...asked.messages, { id: crypto.randomUUID(), role: "user", content: "hi" }],
    });
    const chat = await send(s.handle, more, s.as("bob"));
    expect(chat.error?.code).toBe("THREAD_FORBIDDEN");
    const other = await s.ask("t2");
    const elsewhere = await send(s.handle, { ...resumeBody("t2", other, { approved: true }) }, s.as("eve"));
    // The rule does not let eve approve: she is refused at the door, and the question stays as it was.
    expect(elsewhere.error?.code).toBe("THREAD_FORBIDDEN");
    const bob = await s.answer("t2", other, "bob");
    expect(approvedBy(bob)).toHaveLength(1);
  });

  test("two approvers racing on one question: one is counted, the call never runs on one approval, then once", async () => {
    for (let trial = 0; trial < 5; trial++) {
      const s = setup();
      const asked = await s.ask("t");
      const [bob, carol] = await Promise.all([s.answer("t", asked, "bob"), s.answer("t", asked, "carol")]);
      expect(s.transfers).toEqual([]);
      // The loser ran nothing: it found the thread held, or its question already answered.
      expect([bob, carol].filter((t) => t.error !== undefined)).toHaveLength(1);
      const won = bob.error === undefined ? bob : carol;
      const loser = won === bob ? "carol" : "bob";
      expect(approvedBy(won)).toHaveLength(1);
      const last = await s.answer("t", won, loser);
      expect(last.outcome).toBe("success");
      expect(s.transfers).toHaveLength(1);
    }
  });
});
