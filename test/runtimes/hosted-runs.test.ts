/**
 * Runs hosted in the thread's Durable Object, in workerd (miniflare): the Worker only forwards,
 * the run lives in the object. A client that goes away mid-transfer does not stop it; an object
 * that dies mid-transfer (workerd stopped, started again on the same storage) is noticed by its
 * alarm, which runs the request again: the claimed call becomes the outcome_unknown question, and
 * the transfer never runs twice.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import type { ThreadRecord } from "../../src/stores/thread-store.js";
import { bank, body, json, pausedResume, run, runThenDrop, toolTexts, waitFor, hostedWorld } from "./hosted-client.js";

const { storage, worker } = hostedWorld("kaboo-hosted-");

describe("a run hosted in its thread's Durable Object (workerd)", () => {
  test("a client that leaves mid-transfer: the run goes on in the object and records the transfer", async () => {
    const { mf, url } = await worker();
    try {
      const resume = await pausedResume(url, "t1", 400);
      await runThenDrop(url, resume, async () => (await bank(url)).some((e) => e.what === "started"));
      const record = await waitFor(
        () => json<ThreadRecord>(`${url}/load?thread=t1`),
        (r) => r.lease === null,
      );
      expect(toolTexts(record)).toEqual(["sent 5 to alice"]);
      expect(JSON.stringify(record)).not.toContain("cancelled");
      const again = await run(url, { ...resume, runId: crypto.randomUUID() });
      expect((again.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
      expect((await bank(url)).filter((e) => e.what === "sent")).toHaveLength(1);
    } finally {
      await mf.dispose();
    }
  });

  test("an object that dies mid-transfer: its alarm runs the request again, which asks whether the transfer went through", async () => {
    const persist = storage("died");
    const first = await worker(persist);
    const resume = await pausedResume(first.url, "t2", 5_000);
    await runThenDrop(first.url, resume, async () => (await bank(first.url)).some((e) => e.what === "started"));
    // workerd stops with the run inside the transfer (it never reaches "sent").
    await first.mf.dispose();
    const second = await worker(persist);
    try {
      const record = await waitFor(
        () => json<ThreadRecord>(`${second.url}/load?thread=t2`),
        (r) => r.lease === null && JSON.stringify(r.session ?? {}).includes("outcome_unknown"),
      );
      expect(record.session).not.toBeNull();
      expect((await bank(second.url)).filter((e) => e.what === "sent")).toHaveLength(0);
      // The person says it did go through: nothing runs again.
      const unknownId = Object.keys(
        (record.session as { interrupt_state: { interrupts: Record<string, unknown> } }).interrupt_state.interrupts,
      ).find((id) => id.includes("outcome_unknown"));
      const answer = body("t2", {
        resume: [{ interruptId: unknownId, status: "resolved", payload: { action: "treat_as_done" } }],
      });
      const done = await run(second.url, answer);
      expect((done.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
      expect((await bank(second.url)).filter((e) => e.what === "started")).toHaveLength(1);
      expect(done.some((e) => e.type === EventType.RUN_ERROR)).toBe(false);
    } finally {
      await second.mf.dispose();
    }
  });

  test("the object's death ends only its own run's claims: a claim made from outside (a stateless handler sharing the ledger) stays live", async () => {
    const persist = storage("shared-ledger");
    const first = await worker(persist);
    const resume = await pausedResume(first.url, "t3", 5_000);
    const claim = (url: string) => json<{ status: string }>(`${url}/claim?thread=t3&key=stateless-call`);
    expect((await claim(first.url)).status).toBe("claimed");
    await runThenDrop(first.url, resume, async () => (await bank(first.url)).some((e) => e.what === "started"));
    await first.mf.dispose();
    const second = await worker(persist);
    try {
      await waitFor(
        () => json<ThreadRecord>(`${second.url}/load?thread=t3`),
        (r) => r.lease === null && JSON.stringify(r.session ?? {}).includes("outcome_unknown"),
      );
      // The outside claim's own lease (15 minutes) still holds: its call is running, not unknown.
      expect((await claim(second.url)).status).toBe("running");
    } finally {
      await second.mf.dispose();
    }
  });

  test("a live run keeps no credentials: the request is kept without its headers, and run again for the same person", async () => {
    const persist = storage("credentials");
    const first = await worker(persist);
    const ann = { authorization: "Bearer ann", cookie: "session=ann-cookie-secret" };
    const resume = await pausedResume(first.url, "t4", 5_000, ann);
    let kept = "";
    await runThenDrop(
      first.url,
      resume,
      async () => {
        // Read once the transfer started: the run holds the thread then, and keeps its request.
        const started = (await bank(first.url)).some((e) => e.what === "started");
        if (started) kept = JSON.stringify(await json<unknown>(`${first.url}/meta?thread=t4`));
        return started;
      },
      ann,
    );
    expect(kept).toContain(resume.runId);
    expect(kept).not.toMatch(/authorization|Bearer|cookie|ann-cookie-secret/i);
    await first.mf.dispose();
    const second = await worker(persist);
    try {
      const record = await waitFor(
        () => json<ThreadRecord>(`${second.url}/load?thread=t4`),
        (r) => r.lease === null && JSON.stringify(r.session ?? {}).includes("outcome_unknown"),
      );
      const unknownId = Object.keys(
        (record.session as { interrupt_state: { interrupts: Record<string, unknown> } }).interrupt_state.interrupts,
      ).find((id) => id.includes("outcome_unknown"));
      const answer = body("t4", {
        resume: [{ interruptId: unknownId, status: "resolved", payload: { action: "treat_as_done" } }],
      });
      const other = await run(second.url, answer, { authorization: "Bearer mallory" });
      expect(other.find((e) => e.type === EventType.RUN_ERROR)).toMatchObject({ code: "THREAD_FORBIDDEN" });
      const done = await run(second.url, answer, ann);
      expect((done.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
      expect((await bank(second.url)).filter((e) => e.what === "started")).toHaveLength(1);
    } finally {
      await second.mf.dispose();
    }
  });
});
