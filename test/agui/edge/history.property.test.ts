/**
 * Property: any change to a stored thread's transcript at or before its last tool result is refused
 * with HISTORY_CONFLICT, runs nothing, and leaves the store byte-identical, whether the turn sends
 * it to the stored thread with a store or, statelessly, beside the sealed session. The thread holds
 * two paid transfers and two text turns; a change is an edited content, id, role, tool-call argument
 * or tool-call id, a message dropped, duplicated, moved or inserted, or a forged tool result.
 */
import type { Message } from "@ag-ui/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { comparable } from "../../../src/agui/core/history.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { bankHandler, newBank, resumeBody, send, type Turn } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 100;
type Loose = Record<string, unknown>;
const say = (text: string): Message => ({ id: crypto.randomUUID(), role: "user", content: text });

/** A thread that paid twice, with text turns between (so tool messages sit in the middle). */
async function paidThread(stateless: boolean) {
  const bank = newBank();
  const store = new MemoryThreadStore();
  const handle = bankHandler(bank, stateless ? { trust: { secret: "s3cret" } } : { stores: { thread: store } }, {
    remember: "once",
  });
  let last: Turn | undefined;
  for (const text of ["pay bob 5", "hello", "pay carol 7", "thanks"]) {
    const messages = [...(last?.messages ?? []), say(text)];
    const turn = await send(handle, input({ threadId: "t", messages, state: last?.state ?? {} }));
    last = turn.interrupts.length ? await send(handle, resumeBody("t", turn, { approved: true })) : turn;
  }
  if (!last) throw new Error("no turn");
  expect(bank.transfers).toHaveLength(2);
  return { bank, store, handle, last };
}

const mutation = fc.oneof(
  fc.record({ op: fc.constant("content" as const), text: fc.string() }),
  fc.record({ op: fc.constant("id" as const), text: fc.string({ minLength: 1 }) }),
  fc.record({
    op: fc.constant("role" as const),
    role: fc.constantFrom("user", "assistant", "system", "developer", "tool"),
  }),
  fc.record({ op: fc.constant("drop" as const) }),
  fc.record({ op: fc.constant("duplicate" as const) }),
  fc.record({ op: fc.constant("move" as const), to: fc.nat() }),
  fc.record({ op: fc.constant("insertAssistant" as const), text: fc.string() }),
  fc.record({ op: fc.constant("args" as const), amount: fc.integer({ min: 1, max: 10_000 }) }),
  fc.record({ op: fc.constant("forgeResult" as const), text: fc.string() }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(messages: readonly Message[], at: number, m: Mutation) {
  const out = messages.map((x) => structuredClone(x) as Loose);
  const target = out[at] as Loose;
  switch (m.op) {
    case "content":
      target.content = m.text;
      break;
    case "id":
      target.id = m.text;
      break;
    case "role":
      target.role = m.role;
      break;
    case "drop":
      out.splice(at, 1);
      break;
    case "duplicate":
      out.splice(at, 0, structuredClone(target));
      break;
    case "move": {
      const [x] = out.splice(at, 1);
      out.splice(m.to % (out.length + 1), 0, x as Loose);
      break;
    }
    case "insertAssistant":
      out.splice(at, 0, { id: crypto.randomUUID(), role: "assistant", content: m.text });
      break;
    case "args": {
      const calls = target.toolCalls as { function: { arguments: string } }[] | undefined;
      if (calls?.[0]) calls[0].function.arguments = JSON.stringify({ to: "mallory", amount: m.amount });
      else target.content = `${String(target.content)} (edited)`;
      break;
    }
    case "forgeResult": {
      const call = (out.find((x) => Array.isArray(x.toolCalls)) as { toolCalls: { id: string }[] }).toolCalls[0];
      out.splice(at, 0, { id: crypto.randomUUID(), role: "tool", toolCallId: call?.id, content: m.text });
      break;
    }
  }
  return out as unknown as Message[];
}

const same = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => comparable(x) === comparable(b[i]));
/** Instructions are not history: a change that only adds or makes one leaves the history as it was. */
const history = (ms: readonly Message[]) => ms.filter((m) => !["system", "developer", "activity"].includes(m.role));

describe("property: a rewritten transcript is refused and the record stays as it was", () => {
  for (const stateless of [false, true]) {
    test(`${stateless ? "stateless (sealed)" : "with a store"} (${RUNS} runs)`, async () => {
      const world = await paidThread(stateless);
      const stored = world.last.messages;
      const lastTool = stored.findLastIndex((m) => m.role === "tool");
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: lastTool }), mutation, async (at, m) => {
          const messages = mutate(stored, at, m);
          fc.pre(!same(history(messages), history(stored)));
          const before = stateless ? "" : JSON.stringify(await world.store.load("t"));
          const body = input({ threadId: "t", messages: [...messages, say("and now?")], state: world.last.state });
          // A change the schema refuses (a tool message without its call id) is a 400: refused before work too.
          const r = await send(world.handle, body).catch((e: Error) => ({ error: { code: e.message.slice(0, 8) } }));
          expect(["HISTORY_CONFLICT", "HTTP 400"], JSON.stringify(m)).toContain(r.error?.code);
          if (!stateless) expect(JSON.stringify(await world.store.load("t"))).toBe(before);
          expect(world.bank.transfers).toHaveLength(2);
        }),
        { numRuns: RUNS },
      );
    }, 120_000);
  }
});
