/** The demo's audit panel in real Chromium: it lists the trail, says when the chain holds and when it was changed, and exports JSON Lines. */
import { expect, test } from "vitest";
import { setupAuditPanel } from "../../demo/audit-panel.js";
import { MemoryAuditLog, auditFromJsonLines, verifyAuditTrail } from "../../src/index.js";

test("shows the trail, its state, and exports it", async () => {
  const root = document.createElement("section");
  root.innerHTML =
    '<p class="audit-status"></p><ol class="audit-list"></ol><button class="audit-export">Export</button>';
  document.body.append(root);
  const audit = new MemoryAuditLog();
  const refresh = setupAuditPanel(root, audit, () => "t");
  await refresh();
  expect(root.querySelector<HTMLButtonElement>(".audit-export")?.disabled).toBe(true);
  await audit.append("t", { kind: "revocation", grantIds: ["g"], principal: "ann", by: null });
  await audit.append("t", {
    kind: "decision",
    tool: "transfer",
    toolUseId: "c1",
    interruptId: "i",
    principal: "bob",
    decision: "approved",
    scope: "once",
    editsDigest: null,
    signature: null,
    note: null,
  });
  await refresh();
  expect([...root.querySelectorAll("li")].map((li) => li.dataset["kind"])).toEqual(["revocation", "decision"]);
  expect(root.querySelector("li:last-child")?.textContent).toContain("bob approved the transfer");
  expect(root.querySelector(".audit-status")?.textContent).toBe("2 entries, none changed since written");

  let href = "";
  let download = "";
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    href = this.href;
    download = this.download;
  };
  root.querySelector<HTMLButtonElement>(".audit-export")?.click();
  HTMLAnchorElement.prototype.click = click;
  expect(download).toBe("audit-t.jsonl");
  const exported = await (await fetch(href)).text();
  expect(await verifyAuditTrail(auditFromJsonLines(exported))).toMatchObject({ ok: true, count: 2 });

  const rows = audit.storedRows("t");
  rows[0] = (rows[0] ?? "").replace('"ann"', '"eve"');
  await refresh();
  expect(root.querySelector(".audit-status")?.textContent).toBe(
    "The record was changed after it was written: entry 1 of this conversation: it was edited.",
  );
  root.remove();
});

const decision = {
  kind: "decision" as const,
  tool: "wire_abroad",
  toolUseId: "c1",
  interruptId: "i",
  principal: "you",
  decision: "approved" as const,
  scope: "once" as const,
  editsDigest: null,
  signature: null,
  note: null,
};

test("in a customer's words: one event recorded again is listed once, '1 entry', and revocations show (issue 37)", async () => {
  const root = document.createElement("section");
  root.innerHTML =
    '<p class="audit-status"></p><ol class="audit-list"></ol><button class="audit-export">Export</button>';
  document.body.append(root);
  const audit = new MemoryAuditLog();
  const who = (p: string) => (p === "you" ? "You" : "Your partner");
  const refresh = setupAuditPanel(
    root,
    audit,
    () => "t",
    who,
    () => "kaboo:grants:you",
  );
  await audit.append("t", {
    kind: "request",
    tool: "wire_abroad",
    toolUseId: "c1",
    interruptId: "i",
    argsDigest: "d",
    subject: null,
    rule: "wire_abroad",
    principal: "you",
    expiresAt: null,
    required: 1,
  });
  await refresh();
  expect(root.querySelector(".audit-status")?.textContent).toBe("1 entry, none changed since written");
  // A reload mid-call records the same answer again: the panel lists it once.
  for (let n = 0; n < 3; n++) await audit.append("t", decision);
  await audit.append("t", {
    kind: "execution",
    tool: "wire_abroad",
    toolUseId: "c1",
    idempotencyKey: "k",
    claim: "claimed",
    status: "success",
    resultDigest: null,
    answer: null,
  });
  await audit.append("kaboo:grants:you", { kind: "revocation", grantIds: ["g"], principal: "you", by: "you" });
  await refresh();
  const lines = [...root.querySelectorAll("li")].map((li) => li.lastChild?.textContent?.trim());
  expect(lines).toEqual([
    "Approval asked for the wire",
    "You approved the wire",
    "The wire was carried out",
    "You revoked 1 remembered approval",
  ]);
  expect(root.querySelector("li[data-kind='decision']")?.getAttribute("data-times")).toBe("3");
  expect(root.textContent).not.toMatch(/wire_abroad|\(success\)|1 entries|Asked about/);
  expect(root.querySelector(".audit-status")?.textContent).toBe("6 entries, none changed since written");
  root.remove();
});
