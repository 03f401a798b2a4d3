/** IndexedDbExecutionLedger in real Chromium: real IndexedDB, real Web Locks, and a second document (iframe). */
import { afterEach, describe, expect, test } from "vitest";
import { IndexedDbExecutionLedger } from "../../src/grants/index.js";
import { executionLedgerContract } from "../agent/ledger-contract.js";

const unique = () => `ledger-browser-${crypto.randomUUID()}`;
const frames: HTMLIFrameElement[] = [];
afterEach(() => {
  for (const frame of frames.splice(0)) frame.remove();
});

type FrameWindow = Window & { kabooLedger?: IndexedDbExecutionLedger };

/** A second same-origin document with its own globals: its own IndexedDB connection and lock holder. */
async function ledgerInFrame(dbName: string): Promise<{ ledger: IndexedDbExecutionLedger; frame: HTMLIFrameElement }> {
  const frame = document.createElement("iframe");
  const moduleUrl = new URL("/src/grants/index.ts", location.origin).href;
  frame.srcdoc = `<script type="module">
    import { IndexedDbExecutionLedger } from ${JSON.stringify(moduleUrl)};
    window.kabooLedger = new IndexedDbExecutionLedger({ dbName: ${JSON.stringify(dbName)} });
  </script>`;
  document.body.append(frame);
  frames.push(frame);
  for (let i = 0; i < 200; i++) {
    const ledger = (frame.contentWindow as FrameWindow | null)?.kabooLedger;
    if (ledger) return { ledger, frame };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the iframe did not load the ledger");
}

describe("IndexedDbExecutionLedger in Chromium", () => {
  // The shared contract judges by leases (with Web Locks this document's own claims never die).
  executionLedgerContract((now) => new IndexedDbExecutionLedger({ dbName: unique(), now, locks: null }));

  test("a holder that still runs past its lease reads running, never unknown (no second run offered)", async () => {
    const dbName = unique();
    // This document's clock runs a minute ahead, so the other document's 50 ms lease has run out here.
    const here = new IndexedDbExecutionLedger({ dbName, now: () => Date.now() + 60_000 });
    const { ledger: there } = await ledgerInFrame(dbName);
    expect((await there.claim("pay", { leaseMs: 50 })).status).toBe("claimed");
    expect((await here.claim("pay")).status).toBe("running");
    expect((await here.claim("pay", { takeOverUnknown: true })).status).toBe("running");
  });

  test("runs with real IndexedDB and Web Locks", () => {
    expect(navigator.userAgent).toMatch(/Chrome/);
    expect(typeof navigator.locks.request).toBe("function");
  });

  test("the same call claimed from two documents at once is claimed once", async () => {
    const dbName = unique();
    const here = new IndexedDbExecutionLedger({ dbName });
    const { ledger: there } = await ledgerInFrame(dbName);
    const outcomes = await Promise.all([here.claim("pay"), there.claim("pay"), here.claim("pay"), there.claim("pay")]);
    expect(outcomes.filter((o) => o.status === "claimed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "running")).toHaveLength(3);
  });

  test("a call settled in one document reads done in the other", async () => {
    const dbName = unique();
    const here = new IndexedDbExecutionLedger({ dbName });
    const { ledger: there } = await ledgerInFrame(dbName);
    const c = await there.claim("pay");
    if (c.status !== "claimed") throw new Error("expected a claim");
    expect((await here.claim("pay")).status).toBe("running");
    await there.settle("pay", c.token, { status: "success", content: [{ type: "text", text: "sent" }] });
    expect(await here.claim("pay")).toEqual({
      status: "done",
      result: { status: "success", content: [{ type: "text", text: "sent" }] },
    });
  });

  test("when the document holding a call dies (a reload) the call is unknown at once, not after its lease", async () => {
    const dbName = unique();
    const here = new IndexedDbExecutionLedger({ dbName });
    const { ledger: there, frame } = await ledgerInFrame(dbName);
    expect((await there.claim("pay")).status).toBe("claimed");
    expect((await here.claim("pay")).status).toBe("running");
    frame.remove();
    let outcome = await here.claim("pay");
    for (let i = 0; i < 100 && outcome.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      outcome = await here.claim("pay");
    }
    expect(outcome.status).toBe("unknown");
    expect((await here.claim("pay", { takeOverUnknown: true })).status).toBe("claimed");
  });

  test("a claim made while the holding document is being torn down (a reload) reads unknown, not running", async () => {
    const dbName = unique();
    const here = new IndexedDbExecutionLedger({ dbName });
    const { ledger: there, frame } = await ledgerInFrame(dbName);
    expect((await there.claim("pay")).status).toBe("claimed");
    // The next document claims while the old one still holds its lock; the lock goes a moment later.
    const claiming = here.claim("pay");
    setTimeout(() => frame.remove(), 200);
    expect((await claiming).status).toBe("unknown");
  });
});
