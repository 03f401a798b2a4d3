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
  expect(root.querySelector("li:last-child")?.textContent).toContain("bob: approved");
  expect(root.querySelector(".audit-status")?.textContent).toBe("2 entries, chain intact");

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
  expect(root.querySelector(".audit-status")?.textContent).toBe("The trail was changed: entry 0 (edited)");
  root.remove();
});
