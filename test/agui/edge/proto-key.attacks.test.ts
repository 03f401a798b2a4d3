/**
 * An own `__proto__` key in what a client sends. `JSON.parse` makes it an ordinary key, and zod
 * 3.25's loose object (the zod apps with `@ag-ui/client` 1.x resolve) assigned it into its output,
 * which made the sender's object the output's prototype: every field the schema checks was then
 * read from it unchecked. Such an object is refused wherever the package reads outside input; an
 * approval answer that holds one is unreadable, so it is a denial.
 */
import { describe, expect, test } from "vitest";
import { readAnswer } from "../../../src/hooks/approval/request.js";
import { MemoryAuditLog } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { auditKinds } from "../../agent/audit-helpers.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";

const smuggled = (inner: object) => JSON.parse(`{"__proto__":${JSON.stringify(inner)}}`) as unknown;

describe("an own __proto__ key", () => {
  test("an approval answer hiding its fields behind __proto__ is unreadable: a denial", () => {
    const answer = readAnswer(smuggled({ approved: true, scope: "forever", editedArgs: "not an object" }));
    expect(answer.decision).toBe("denied");
    expect(answer.invalid).toBeDefined();
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
  });

  // The edge reads a resume payload as a JSON value first (recordOf drops the key), so this held before too.
  test("through the edge: the call does not run, and the trail records a denial", async () => {
    const bank = newBank();
    const audit = new MemoryAuditLog();
    const handle = bankHandler(bank, { stores: { thread: new MemoryThreadStore(), audit } }, { remember: "always" });
    const { turn } = await pause(handle, "t", "pay bob 5");
    const answered = await send(handle, resumeBody("t", turn, smuggled({ approved: true, scope: "always" })));
    expect(answered.error).toBeUndefined();
    expect(bank.transfers).toEqual([]);
    expect(auditKinds(await audit.entries("t"))).toEqual(["request", "decision:denied"]);
    // The question was answered: a plain approval sent after it runs nothing either.
    await send(handle, resumeBody("t", turn, { approved: true }));
    expect(bank.transfers).toEqual([]);
  });
});
