/**
 * The demo's scripted model reads what people type: amounts with currency signs and in words,
 * names after filler words, own-account moves, and "cancel"/"undo".
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { readIntent } from "../../demo/intents.js";
import { formatMoney, wordsToNumber } from "../../demo/money.js";

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

  test("wires keep their currency and IBAN", () => {
    expect(readIntent("Wire 900 EUR to Lena DE89370400440532013000")).toEqual({
      kind: "wire",
      to: "lena",
      amount: { value: 900, currency: "EUR" },
      iban: "DE89370400440532013000",
    });
  });

  test.each(["cancel that", "undo", "Undo that", "cancel", "please undo the last one", "never mind"])("%s is undo", (text) => {
    expect(readIntent(text).kind).toBe("undo");
  });

  test("off-script input is unknown, not a payment", () => {
    for (const text of ["what's the weather", "send it to me", "transfer to bob", "send 0 to bob", "pay me"])
      expect(readIntent(text).kind).toBe("unknown");
  });

  test("any typed text gives an intent without throwing", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => typeof readIntent(text).kind === "string"));
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
