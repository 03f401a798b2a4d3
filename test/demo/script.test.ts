/**
 * The scripted bank's replies in a conversation: it proposes exactly the payments asked for (each
 * its own call), says a limit in words before asking anything, asks for what is missing and never
 * fills it in, and answers follow-ups ("what did I just do?", "ok thanks") from the conversation.
 */
import { describe, expect, test } from "vitest";
import type { Message, ScriptedTurn, ToolResultBlock } from "kaboo-workflows";
import { respond } from "../../demo/script.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (turn: ScriptedTurn, ids: string[] = []): Message => ({
  role: "assistant",
  content: [
    ...(turn.text ? [{ type: "text" as const, text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((c, i) => ({
      type: "toolUse" as const,
      toolUseId: ids[i]!,
      name: c.name,
      input: c.input,
    })),
  ],
});

/** Says each line in turn (the model's text replies kept), returning the last turn. */
function talk(...lines: string[]): { turn: ScriptedTurn; messages: Message[] } {
  const messages: Message[] = [];
  let turn: ScriptedTurn = {};
  for (const line of lines) {
    messages.push(user(line));
    turn = respond({
      messages,
      lastUserText: line,
      lastToolResults: [],
      systemPrompt: "",
      toolSpecs: [],
      callIndex: 0,
    });
    if (!turn.toolCalls?.length) messages.push(assistant(turn));
  }
  return { turn, messages };
}

const inputs = (turn: ScriptedTurn) => (turn.toolCalls ?? []).map((c) => [c.name, c.input]);
const IBAN_LIKE = /[A-Z]{2}\d{2}[A-Z0-9]{8,}/;

describe("the scripted bank", () => {
  test("two payments in one sentence are two calls, each as said", () => {
    const { turn } = talk("send 5 to bob and 10 to alice");
    expect(inputs(turn)).toEqual([
      ["transfer", { to: "bob", amount: 5 }],
      ["transfer", { to: "alice", amount: 10 }],
    ]);
    expect(turn.text).toContain("€5.00 to Bob and €10.00 to Alice");
  });

  test("an amount for two people asks one clear question and proposes nothing", () => {
    const { turn } = talk("send 5 to bob and alice");
    expect(turn.toolCalls).toBeUndefined();
    expect(turn.text).toMatch(/Should I send €5\.00 to each of Bob and Alice, or €5\.00 in total\?/);
  });

  test("a wire without an IBAN asks for it; the typed IBAN is the one used", () => {
    const asked = talk("Wire 900 EUR to Lena");
    expect(asked.turn.toolCalls).toBeUndefined();
    expect(asked.turn.text).toContain("What is Lena's IBAN?");
    expect(asked.turn.text).not.toMatch(IBAN_LIKE);
    const { turn } = talk("Wire 900 EUR to Lena", "GB29 NWBK 6016 1331 9268 19");
    expect(inputs(turn)).toEqual([
      ["wire_abroad", { to: "lena", iban: "GB29NWBK60161331926819", amount: 900, currency: "EUR" }],
    ]);
  });

  test("'pay bob' asks how much; the answer completes the transfer", () => {
    expect(talk("pay bob").turn.text).toContain("How much should I send to Bob?");
    expect(inputs(talk("pay bob", "20").turn)).toEqual([["transfer", { to: "bob", amount: 20 }]]);
    expect(talk("pay bob", "never mind").turn.text).toBe("Okay, I won't send anything.");
    // A new request instead of an answer is read on its own.
    expect(talk("pay bob", "what's my balance?").turn.toolCalls?.[0]?.name).toBe("get_balance");
  });

  test("a limit is said in words before anything is asked", () => {
    const { turn } = talk("send 6000 to bob");
    expect(turn.toolCalls).toBeUndefined();
    expect(turn.text).toContain("€6,000.00 is more than the €5,000.00 limit for one transfer");
    const both = talk("send 5 to bob and 6000 to alice").turn;
    expect(both.toolCalls).toBeUndefined();
    expect(both.text).toContain("Nothing in this request was sent");
  });

  test("typos and follow-ups get answers, not 'I can't help'", () => {
    expect(talk("whats my balence").turn.toolCalls?.[0]?.name).toBe("get_balance");
    expect(talk("ok thanks").turn.text).toMatch(/^You're welcome!/);
    expect(talk("what did I just do?").turn.text).toMatch(/^Nothing yet/);
  });

  test("'what did I just do?' answers from the calls and their results, latest first", () => {
    const messages: Message[] = [
      user("Send 42 to Bob"),
      assistant({ toolCalls: [{ name: "transfer", input: { to: "bob", amount: 42 } }] }, ["c1"]),
      { role: "user", content: [result("c1", "success", "Sent €42.00 to Bob. Checking is now €2,298.12.")] },
      assistant({ text: "Done." }),
      user("pay eve 7"),
      assistant({ toolCalls: [{ name: "transfer", input: { to: "eve", amount: 7 } }] }, ["c2"]),
      { role: "user", content: [result("c2", "error", "The person denied the call.")] },
      assistant({ text: "Understood." }),
      user("what did I just do?"),
    ];
    const turn = respond({
      messages,
      lastUserText: "what did I just do?",
      lastToolResults: [],
      systemPrompt: "",
      toolSpecs: [],
      callIndex: 0,
    });
    expect(turn.text).toContain("- You declined: send €7.00 to Eve. It did not happen.\n- Sent €42.00 to Bob.");
  });
});

function result(toolUseId: string, status: "success" | "error", text: string): ToolResultBlock {
  return { type: "toolResult", toolUseId, status, content: [{ type: "text", text }] };
}
