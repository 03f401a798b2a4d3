/**
 * The Worker's router attacked: `forwardToThread` must send a body to the object of the thread the
 * handler in that object will read from it (a Stop's, a reattach's, or a run's thread), for any
 * body, escaped keys and duplicate keys included; and it must not parse the body (the object's
 * handler bounds a body's cost before parsing it).
 */
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import { forwardToThread } from "../../../src/agui/index.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 500;

/** A namespace that records the object name each request went to. */
function namespace() {
  const names: string[] = [];
  return {
    names,
    idFromName: (name: string) => {
      names.push(name);
      return name;
    },
    get: () => ({ fetch: async () => new Response("ok") }),
  };
}

const route = async (text: string) => {
  const ns = namespace();
  await forwardToThread(new Request("http://w.test/", { method: "POST", body: text }), ns as never);
  return ns.names[0];
};

/** What the handler does with a body: a Stop's thread, else a reattach's, else the run's. */
function handlersThread(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "";
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "";
  const b = body as Record<string, unknown>;
  const inner = Object.hasOwn(b, "kaboo_cancel")
    ? b.kaboo_cancel
    : Object.hasOwn(b, "kaboo_connect")
      ? b.kaboo_connect
      : b;
  const id = typeof inner === "object" && inner !== null ? (inner as { threadId?: unknown }).threadId : undefined;
  return typeof id === "string" ? id : "";
}

const escapeKey = (key: string) => [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

afterEach(() => vi.restoreAllMocks());

describe("forwardToThread, attacked", () => {
  test("a Stop or a reattach that also names a run thread goes to the thread the handler stops or watches", async () => {
    expect(await route(JSON.stringify({ threadId: "mine", kaboo_cancel: { threadId: "victim" } }))).toBe("victim");
    expect(await route(JSON.stringify({ kaboo_connect: { threadId: "victim" }, threadId: "mine" }))).toBe("victim");
  });

  test("escaped and duplicate keys route as JSON.parse reads them", async () => {
    const large = " ".repeat(8_200);
    expect(await route(`{"threadId":"a","threadId":"b"}${large}`)).toBe("b");
    expect(await route(`{"threadId":"a","${escapeKey("threadId")}":"b"}${large}`)).toBe("b");
    expect(await route(`{"${escapeKey("threadId")}":"a"}`)).toBe("a");
    expect(await route(`{"threadId":"a","threadId":"b"}`)).toBe("b");
    expect(await route(`{"threadId":"a","${escapeKey("threadId")}":"b"}`)).toBe("b");
    expect(await route(`{"x":{"threadId":"deep"},"threadId":"top"}`)).toBe("top");
    expect(await route(`{"x":"\\"threadId\\":\\"fake\\"","threadId":"top"}`)).toBe("top");
  });

  test("the body is not parsed in the Worker", async () => {
    const grants = `[${Array(300_000).fill("{}").join(",")}]`;
    const text = `{"forwardedProps":{"kaboo_grants":${grants}},"threadId":"t"}`;
    const parse = vi.spyOn(JSON, "parse");
    expect(await route(text)).toBe("t");
    expect(parse.mock.calls.some(([s]) => typeof s === "string" && s.length > 10_000)).toBe(false);
  });

  test(`property: any body routes to the handler's thread (${RUNS} bodies)`, async () => {
    const key = fc.constantFrom("threadId", "kaboo_cancel", "kaboo_connect", "runId", "x");
    const id = fc.oneof(fc.string(), fc.constantFrom("t", "victim", 'a"b', "\\", "é"));
    const value = fc.oneof(
      id,
      fc.record({ threadId: id }),
      fc.record({ threadId: fc.integer() }),
      fc.json().map((j) => JSON.parse(j) as unknown),
    );
    const entry = fc.tuple(key, fc.boolean(), value).map(([k, escaped, v]) => {
      const name = escaped ? `"${escapeKey(k)}"` : JSON.stringify(k);
      return `${name}:${JSON.stringify(v) ?? "null"}`;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 6 }),
        fc.constantFrom("", " ", "\n\t"),
        fc.boolean(),
        async (entries, ws, large) => {
          // A small body is parsed, a large one scanned: both read the handler's thread.
          const pad = large ? " ".repeat(8_200) : "";
          const text = `${ws}{${ws}${entries.join(`${ws},${ws}`)}${ws}}${ws}${pad}`;
          expect(await route(text), text).toBe(handlersThread(text));
        },
      ),
      { numRuns: RUNS },
    );
  });
});
