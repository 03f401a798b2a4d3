/**
 * The demo's scripted model reads what people type: amounts with currency signs and in words,
 * names after filler words, own-account moves, and "cancel"/"undo".
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fillNeed, readIntent } from "../../demo/intents.js";
import { formatMoney, wordsToNumber } from "../../demo/money.js";
import { fixSlips } from "../../demo/spelling.js";

describe("readIntent", () => {
  test.each([
    ["transfer $5 to Alice please", { kind: "transfer", to: "alice", amount: { value: 5, currency: "USD" } }],
    ["send twenty to bob", { kind: "transfer", to: "bob", amount: { value: 20, currency: undefined } }],
    ["Send 42 to Bob", { kind: "transfer", to: "bob", amount: { value: 42, currency: undefined } }],
    ["pay eve 7", { kind: "transfer", to: "eve", amount: { value: 7, currency: undefined } }],
    ["send €12.50 to my friend Carol", { kind: "transfer", to: "carol", amount: { value: 12.5, currency: "EUR" } }],
    ["give 30 euros to dave", { kind: "transfer", to: "dave", amount: { value: 30, currency: "EUR" } }],
    ["send one hundred and five to bob", { kind: "transfer", to: "bob", amount: { value: 105, currency: undefined } }],
    ["send seventy-five pounds to bob", { kind: "transfer", to: "bob", amount: { value: 75, currency: "GBP" } }],
    ["send 1,200 to bob", { kind: "transfer", to: "bob", amount: { value: 1200, currency: undefined } }],
    ["move 100 to savings", { kind: "move", to: "savings", amount: { value: 100, currency: undefined } }],
    ["put fifty into my checking", { kind: "move", to: "checking", amount: { value: 50, currency: undefined } }],
  ])("%s", (text, intent) => {
    expect(readIntent(text)).toEqual(intent);
  });

  test("'unfreeze my card' is the opposite of a freeze, never read as one (issue 37)", () => {
    expect(fixSlips("unfreeze my card")).toBe("unfreeze my card");
    for (const text of ["unfreeze my card", "Unfreeze card 1234", "please unblock my card", "unlock my card"])
      expect(readIntent(text).kind).toBe("unfreeze");
    expect(readIntent("freeze my card")).toEqual({ kind: "freeze", last4: "4821" });
    expect(readIntent("frezee my card").kind).toBe("freeze");
  });

  test("wires keep their currency and IBAN", () => {
    expect(readIntent("Wire 900 EUR to Lena DE89370400440532013000")).toEqual({
      kind: "wire",
      to: "lena",
      amount: { value: 900, currency: "EUR" },
      iban: "DE89370400440532013000",
    });
  });

  test.each(["cancel that", "undo", "Undo that", "cancel", "please undo the last one", "never mind"])(
    "%s is undo",
    (text) => {
      expect(readIntent(text).kind).toBe("undo");
    },
  );

  test("off-script input is unknown, not a payment", () => {
    for (const text of [
      "what's the weather",
      "send it to me",
      "send 0 to bob",
      "pay me",
      "explain it and give examples",
    ])
      expect(readIntent(text).kind).not.toMatch(/^(transfer|move|wire|several|need)$/);
    expect(readIntent("what's the weather").kind).toBe("unknown");
  });

  test("several payments in one sentence are each read, none dropped or merged", () => {
    expect(readIntent("send 5 to bob and 10 to alice")).toEqual({
      kind: "several",
      payments: [
        { kind: "transfer", to: "bob", amount: { value: 5, currency: undefined } },
        { kind: "transfer", to: "alice", amount: { value: 10, currency: undefined } },
      ],
    });
    const three = readIntent("pay bob 5, then 20 to carol and move 100 to savings");
    expect(three.kind === "several" && three.payments.map((p) => [p.kind, p.to, p.amount?.value])).toEqual([
      ["transfer", "bob", 5],
      ["transfer", "carol", 20],
      ["move", "savings", 100],
    ]);
    // "and" inside an amount in words is not a second payment.
    expect(readIntent("send one hundred and five to bob")).toMatchObject({ kind: "transfer", amount: { value: 105 } });
    expect(readIntent("pay bob one hundred and five")).toMatchObject({
      kind: "transfer",
      to: "bob",
      amount: { value: 105 },
    });
    expect(readIntent("send 5 to bob, thanks")).toMatchObject({ kind: "transfer", to: "bob" });
  });

  test("an amount for two people is a question, not a guess", () => {
    expect(readIntent("send 5 to bob and alice")).toEqual({
      kind: "split",
      names: ["bob", "alice"],
      amount: { value: 5, currency: undefined },
    });
  });

  test("a missing amount, recipient or IBAN is a need, never filled in", () => {
    expect(readIntent("pay bob")).toEqual({ kind: "need", action: "transfer", missing: "amount", to: "bob" });
    expect(readIntent("send money to alice")).toMatchObject({ kind: "need", missing: "amount", to: "alice" });
    expect(readIntent("transfer to bob")).toMatchObject({ kind: "need", missing: "amount", to: "bob" });
    expect(readIntent("send 50")).toMatchObject({ kind: "need", missing: "recipient", amount: { value: 50 } });
    expect(readIntent("Wire 900 EUR to Lena")).toEqual({
      kind: "need",
      action: "wire",
      missing: "iban",
      to: "lena",
      amount: { value: 900, currency: "EUR" },
    });
  });

  test("the reply to a question completes the payment with what was typed", () => {
    const wire = readIntent("wire 900 EUR to lena");
    expect(wire.kind).toBe("need");
    if (wire.kind !== "need") return;
    expect(fillNeed(wire, "DE12 5001 0517 0648 4898 90")).toEqual({
      kind: "wire",
      to: "lena",
      amount: { value: 900, currency: "EUR" },
      iban: "DE12500105170648489890",
    });
    expect(fillNeed(wire, "what?")).toBeUndefined();
    const pay = readIntent("pay bob");
    if (pay.kind !== "need") throw new Error(pay.kind);
    expect(fillNeed(pay, "20")).toEqual({ kind: "transfer", to: "bob", amount: { value: 20, currency: undefined } });
    expect(fillNeed(pay, "make it twenty euros")).toMatchObject({ amount: { value: 20, currency: "EUR" } });
    const who = readIntent("send 50");
    if (who.kind !== "need") throw new Error(who.kind);
    expect(fillNeed(who, "to my friend Carol")).toMatchObject({ kind: "transfer", to: "carol", amount: { value: 50 } });
  });

  test.each([
    ["whats my balence", "balance"],
    ["show my statment", "statement"],
    ["what did I just do?", "recap"],
    ["what happened?", "recap"],
    ["ok thanks", "thanks"],
    ["Thank you so much!", "thanks"],
    ["great, bye", "thanks"],
  ])("%s → %s", (text, kind) => {
    expect(readIntent(text).kind).toBe(kind);
  });

  test("any typed text gives an intent without throwing", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => typeof readIntent(text).kind === "string"));
  });
});

describe("fixSlips", () => {
  test("slips in the words listened for are put right; names and short words are not", () => {
    expect(fixSlips("whats my balence")).toBe("whats my balance");
    expect(fixSlips("tranfer 5 to Bob from chekcing")).toBe("transfer 5 to Bob from checking");
    expect(fixSlips("send 5 to Savina and Alice")).toBe("send 5 to Savina and Alice");
  });
});

describe("money", () => {
  test("numbers in words", () => {
    expect(wordsToNumber("twenty")).toBe(20);
    expect(wordsToNumber("a hundred")).toBe(100);
    expect(wordsToNumber("two thousand three hundred and forty-five")).toBe(2345);
    expect(wordsToNumber("lots")).toBeUndefined();
  });

  test("amounts as a bank writes them", () => {
    expect(formatMoney(42)).toBe("€42.00");
    expect(formatMoney(5, "USD")).toBe("$5.00");
  });
});
