/**
 * What one request may cost the edge handler: hostile grant lists are read up to a cap and refused
 * with one log line, whatever their length. (Speed itself is measured in bench/request-cost.mjs.)
 */
import { describe, expect, test, vi } from "vitest";
import { signGrant } from "../../../src/grants/signing.js";
import { UserError } from "../../../src/errors.js";
import { bankHandler, newBank, pause, resumeBody, send } from "./fixtures.js";
import { input } from "../helpers.js";

const SECRET = "request-bounds-secret";

describe("grants sent by a client", () => {
  test("40,000 {} grants with a secret: one warning for the list, and the run goes on", async () => {
    const log = { warn: vi.fn(), error: vi.fn() };
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET }, logger: log });
    const body = input({
      messages: [{ id: "u1", role: "user", content: "pay bob 5" }],
      forwardedProps: { kaboo_grants: Array.from({ length: 40_000 }, () => ({})) },
    });
    const turn = await send(handle, body);
    expect(turn.interrupts).toHaveLength(1);
    const grantLines = log.warn.mock.calls.filter(([message]) => /grant/.test(String(message)));
    expect(grantLines).toHaveLength(1);
    expect(grantLines[0]?.[1]).toMatchObject({
      summary: "256 grants refused (256× tool: must be a string), 39744 not read (over 256)",
    });
  });

  test("a signed grant inside the cap still answers the question; one past maxGrants is not read", async () => {
    const bank = newBank();
    const grant = await signGrant(
      { tool: "transfer", subjectKey: "to:bob", scope: "always", grantedAt: Date.now() },
      SECRET,
    );
    const inside = bankHandler(bank, { trust: { secret: SECRET }, limits: { maxGrants: 3 } });
    const sendWith = (grants: unknown[]) =>
      send(
        inside,
        input({
          messages: [{ id: "u1", role: "user", content: "pay bob 5" }],
          forwardedProps: { kaboo_grants: grants },
        }),
      );
    expect((await sendWith([{}, {}, grant])).interrupts).toHaveLength(0);
    expect(bank.transfers).toHaveLength(1);
    expect((await sendWith([{}, {}, {}, grant])).interrupts).toHaveLength(1);
    expect(bank.transfers).toHaveLength(1);
    expect(() => bankHandler(bank, { trust: { secret: SECRET }, limits: { maxGrants: 0 } })).toThrow(UserError);
  });

  test("a resume carrying 40,000 [] grants is answered like any other", async () => {
    const bank = newBank();
    const handle = bankHandler(bank, { trust: { secret: SECRET } });
    const { turn } = await pause(handle, "t-grants", "pay bob 5");
    const body = resumeBody("t-grants", turn, { approved: true });
    body.forwardedProps = { kaboo_grants: Array.from({ length: 40_000 }, () => []) };
    const resumed = await send(handle, body);
    expect(resumed.error).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });
});

/** A body of JSON text with `text` in place of the field `key`. */
const raw = (key: string, text: string) =>
  JSON.stringify(input({ messages: [{ id: "u1", role: "user", content: "hi" }], [key]: "@@" })).replace('"@@"', text);
const wide = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"${i.toString(36)}":0`).join(",")}}`;

async function answer(handle: (r: Request) => Promise<Response>, body: string) {
  const res = await handle(new Request("http://edge.test/agui", { method: "POST", body }));
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { error?: string; detail?: string } };
}

describe("the cost of a body is bounded before it is parsed", () => {
  const handle = bankHandler(newBank(), { trust: { secret: SECRET } });

  test("a state of 120,000 keys (1 MB) is 400 too_complex, in words", async () => {
    const r = await answer(handle, raw("state", wide(120_000)));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "too_complex", detail: "An object in the body has more than 500 keys." });
  });

  test("forwardedProps of 120,000 keys, and 300,000 {} grants, are refused the same way", async () => {
    expect((await answer(handle, raw("forwardedProps", wide(120_000)))).body.error).toBe("too_complex");
    const grants = `{"kaboo_grants":[${Array(300_000).fill("{}").join(",")}]}`;
    const r = await answer(handle, raw("forwardedProps", grants));
    expect(r.body).toEqual({ error: "too_complex", detail: "The body holds more than 100000 JSON values." });
  });

  test("500 keys pass; the bounds are options", async () => {
    expect((await answer(handle, raw("state", wide(500)))).status).toBe(200);
    const roomy = bankHandler(newBank(), {
      trust: { secret: SECRET },
      limits: { maxObjectKeys: 200_000, maxJsonValues: 1_000_000 },
    });
    expect((await answer(roomy, raw("state", wide(120_000)))).status).toBe(200);
  });

  test("a string holding braces, colons and commas counts as one value", async () => {
    const text = JSON.stringify(`${'{"a":1,'.repeat(60_000)}`);
    expect((await answer(handle, raw("state", `{"note":${text}}`))).status).toBe(200);
  });

  test("more than 2,000 messages, 128 tools, 256 context entries or 256 answers is 400 too_many, before the schema", async () => {
    const list = (n: number, item: string) => `[${Array(n).fill(item).join(",")}]`;
    const message = JSON.stringify({ id: "m", role: "user", content: "hi" });
    const cases: [string, string, RegExp][] = [
      ["messages", list(2_001, message), /2001 messages entries; this endpoint takes at most 2000/],
      ["tools", list(129, JSON.stringify({ name: "t", description: "", parameters: {} })), /at most 128/],
      ["context", list(257, JSON.stringify({ description: "d", value: "v" })), /at most 256/],
      ["resume", list(257, JSON.stringify({ interruptId: "x", status: "resolved" })), /at most 256/],
    ];
    for (const [key, text, words] of cases) {
      const r = await answer(handle, raw(key, text));
      expect(r.status, key).toBe(400);
      expect(r.body.error, key).toBe("too_many");
      expect(r.body.detail, key).toMatch(words);
    }
  });

  test("a thread or run id over 512 bytes is 400 id_too_long (store keys hold it; Deno KV refuses keys over 2 KiB)", async () => {
    const long = "t".repeat(513);
    const runBody = (ids: { threadId?: string; runId?: string }) =>
      JSON.stringify(input({ messages: [{ id: "u1", role: "user", content: "hi" }], ...ids }));
    for (const body of [
      runBody({ threadId: long }),
      runBody({ runId: long }),
      JSON.stringify({ kaboo_cancel: { threadId: long } }),
      JSON.stringify({ kaboo_connect: { threadId: long } }),
    ]) {
      const r = await answer(handle, body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: "id_too_long", detail: expect.stringMatching(/at most 512 bytes/) });
    }
    expect((await answer(handle, runBody({ threadId: "t".repeat(512) }))).status).toBe(200);
  });

  test("a body the schema refuses lists at most 20 of its issues", async () => {
    const bad = `[${Array(200).fill('{"id":1,"role":"user","content":5}').join(",")}]`;
    const r = await answer(handle, raw("messages", bad));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_run_input");
    expect((r.body.detail ?? "").split("\n").filter((l) => l.startsWith("✖")).length).toBeLessThanOrEqual(20);
  });

  test("depth is measured per part in one walk: state past 64 levels is named", async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
    expect(await answer(handle, raw("state", deep(65)))).toMatchObject({ status: 400, body: { error: "too_deep" } });
    expect((await answer(handle, raw("state", deep(65)))).body.detail).toMatch(/^state is nested deeper than 64/);
    expect((await answer(handle, raw("state", deep(64)))).status).toBe(200);
  });
});
