/**
 * Results our code cannot turn into JSON — a cycle, a BigInt, a getter that throws, a toJSON that
 * throws, a Symbol-keyed or prototype-keyed object — from a callback that ran: the call is a
 * success with a note (never an error of ours, never a crash of the run), and it ran once.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import { Agent, tool, type ToolResultBlock } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";

afterEach(() => vi.restoreAllMocks());

function cyclic(): unknown {
  const a: Record<string, unknown> = { amount: 5 };
  a.self = a;
  return a;
}

const hostile: [string, () => unknown][] = [
  [
    "a ToolOutput whose JSON part holds a BigInt",
    () => ({ status: "success", content: [{ type: "json", json: { n: 5n } }] }),
  ],
  ["a cycle", cyclic],
  ["a BigInt", () => ({ amount: 5n })],
  [
    "a getter that throws",
    () =>
      Object.defineProperty({ ok: 1 }, "boom", {
        enumerable: true,
        get: () => {
          throw new Error("getter");
        },
      }),
  ],
  [
    "a toJSON that throws",
    () => ({
      toJSON: () => {
        throw new Error("toJSON");
      },
    }),
  ],
  [
    "__proto__ and constructor keys",
    () => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'),
  ],
];

describe("results that are not JSON, from a callback that ran", () => {
  for (const [name, make] of hostile)
    test(`${name}: one run, the run goes on, no error of ours`, async () => {
      vi.spyOn(console, "warn").mockImplementation(() => undefined);
      let runs = 0;
      const t = tool({
        name: "charge",
        description: "",
        inputSchema: z.object({}),
        callback: () => {
          runs++;
          return make() as never;
        },
      });
      const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "charge", input: {} }] }, { text: "ok" }] });
      const agent = new Agent({ model, tools: [t] });
      await agent.invoke("go");
      expect(runs).toBe(1);
      const r = agent.messages.flatMap((m) =>
        m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"),
      )[0];
      expect(r?.status).toBe("success");
      expect(JSON.stringify(r?.content)).not.toMatch(/"Error/);
      expect(agent.messages.at(-1)?.role).toBe("assistant");
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
});
