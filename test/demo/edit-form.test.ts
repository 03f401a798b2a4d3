/**
 * The dialog's edit form is built from each tool's JSON Schema (made from the zod schema the tool
 * checks its input with): one field per argument, with its kind, whether it is required, its
 * choices and its limit.
 */
import { describe, expect, test } from "vitest";
import { fieldsOf } from "../../demo/edit-form.js";

describe("fieldsOf", () => {
  test("a transfer: recipient, amount up to the limit, an optional currency", () => {
    expect(fieldsOf("transfer")).toEqual([
      { name: "to", kind: "text", required: true, choices: [], max: undefined },
      { name: "amount", kind: "amount", required: true, choices: [], max: 5000 },
      { name: "currency", kind: "choice", required: false, choices: ["EUR", "USD", "GBP", "CHF"], max: undefined },
    ]);
  });

  test("a wire needs its IBAN and currency; a tool without a schema has no form", () => {
    expect(fieldsOf("wire_abroad")?.map((f) => [f.name, f.required])).toEqual([
      ["to", true],
      ["iban", true],
      ["amount", true],
      ["currency", true],
    ]);
    expect(fieldsOf("set_theme")).toBeUndefined();
  });
});
