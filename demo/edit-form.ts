/**
 * Editing a call's details in the approval dialog: a form built from the tool's JSON Schema (made
 * from the same zod schema the tool checks its input with), one labelled field per argument — text,
 * an amount, or a choice — and problems said the way a person reads them ("The most one transfer
 * can send is €5,000.00."), each beside its field. A tool the demo has no schema for is not editable.
 */
import * as z from "zod/v4";
import { toolSchemas } from "./bank-tools.js";
import { formatMoney } from "./money.js";

/** One field of the form, read from the tool's JSON Schema. */
export interface Field {
  name: string;
  kind: "text" | "amount" | "choice";
  required: boolean;
  choices: string[];
  max: number | undefined;
}

const LABELS: Record<string, string> = {
  to: "Recipient",
  amount: "Amount",
  currency: "Currency",
  iban: "IBAN",
  last4: "Card (last four digits)",
  account: "Account",
};
const LIMIT_WORDS: Record<string, string> = {
  transfer: "one transfer can send",
  move_money: "one move can take",
  wire_abroad: "one wire can send",
};

const label = (name: string) => LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, " ");

type JsonProp = { type?: string; enum?: unknown[]; maximum?: number };

/** The fields of a tool's form; `undefined` when the demo has no schema for it. */
export function fieldsOf(tool: string): Field[] | undefined {
  const schema = (toolSchemas as Record<string, z.ZodType>)[tool];
  if (!schema) return undefined;
  const json = z.toJSONSchema(schema) as { properties?: Record<string, JsonProp>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, p]) => ({
    name,
    kind: p.enum ? "choice" : p.type === "number" ? "amount" : "text",
    required: json.required?.includes(name) ?? false,
    choices: (p.enum ?? []).map(String),
    max: p.maximum,
  }));
}

/** A zod issue in words, for the field it is about. */
function human(tool: string, field: Field | undefined, issue: z.core.$ZodIssue, currency: string): string {
  const name = label(field?.name ?? "").toLowerCase();
  if (field?.name === "iban") return "Enter an IBAN: two letters, two digits, then 8 to 30 letters or digits.";
  if (field?.name === "last4") return "Enter the card's last four digits.";
  if (field?.kind === "amount") {
    if (issue.code === "too_big")
      return `The most ${LIMIT_WORDS[tool] ?? "one payment can move"} is ${formatMoney(Number(issue.maximum), currency)}.`;
    if (issue.code === "too_small") return "Enter an amount above 0.";
    return "Enter an amount in numbers, such as 42.50.";
  }
  if (field?.kind === "choice") return `Choose one of ${field.choices.join(", ")}.`;
  if (issue.code === "too_big") return `Keep the ${name} to ${Number(issue.maximum)} characters or fewer.`;
  return `Enter the ${name}.`;
}

/** What a field's input holds, as the tool takes it (`undefined` when left empty). */
function read(field: Field, raw: string): unknown {
  const text = raw.trim();
  if (!text) return undefined;
  if (field.kind === "amount") {
    const n = Number(text.replace(/[€$£\s]/g, "").replace(/,(?=\d{1,2}$)/, "."));
    return Number.isFinite(n) ? n : text;
  }
  return field.name === "iban" ? text.replace(/\s+/g, "").toUpperCase() : text;
}

/** The form in the dialog. */
export class EditForm {
  readonly #root: HTMLElement;
  #tool = "";
  #fields: Field[] = [];

  constructor(root: HTMLElement, onInput: () => void) {
    this.#root = root;
    root.addEventListener("input", onInput);
    root.addEventListener("change", onInput);
  }

  /** Whether the tool has a form. */
  get editable(): boolean {
    return this.#fields.length > 0;
  }

  /** Builds the form for a call, filled with its arguments. */
  show(tool: string, input: Record<string, unknown>): void {
    this.#tool = tool;
    this.#fields = fieldsOf(tool) ?? [];
    this.#root.replaceChildren(...this.#fields.map((f) => this.#row(f, input[f.name])));
  }

  #row(f: Field, value: unknown): HTMLElement {
    const row = Object.assign(document.createElement("div"), { className: "field" });
    const id = `edit-${f.name}`;
    const lab = Object.assign(document.createElement("label"), { htmlFor: id, textContent: label(f.name) });
    const input = f.kind === "choice" ? document.createElement("select") : document.createElement("input");
    if (input instanceof HTMLSelectElement) {
      const options = f.required ? f.choices : ["", ...f.choices];
      input.append(...options.map((c) => new Option(c || "Euros (default)", c)));
    } else {
      input.autocomplete = "off";
      if (f.kind === "amount") input.inputMode = "decimal";
    }
    Object.assign(input, { id, name: f.name, value: value === undefined ? "" : String(value) });
    input.setAttribute("aria-describedby", `${id}-error`);
    const error = Object.assign(document.createElement("p"), { id: `${id}-error`, className: "field-error" });
    row.append(lab, input, error);
    return row;
  }

  /** The edited arguments, checked with the tool's schema; problems are shown beside their fields. */
  check(): { ok: true; value: Record<string, unknown> } | { ok: false } {
    const value: Record<string, unknown> = {};
    for (const f of this.#fields) {
      const input = this.#root.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${f.name}"]`);
      const v = read(f, input?.value ?? "");
      if (v !== undefined) value[f.name] = v;
    }
    const schema = (toolSchemas as Record<string, z.ZodType>)[this.#tool];
    const checked = schema ? schema.safeParse(value) : { success: true as const };
    const problems = new Map<string, string>();
    if (!checked.success) {
      const currency = typeof value["currency"] === "string" ? value["currency"] : "EUR";
      for (const issue of checked.error.issues) {
        const name = String(issue.path[0] ?? "");
        if (!problems.has(name))
          problems.set(
            name,
            human(
              this.#tool,
              this.#fields.find((f) => f.name === name),
              issue,
              currency,
            ),
          );
      }
    }
    for (const f of this.#fields) {
      const input = this.#root.querySelector<HTMLElement>(`[name="${f.name}"]`);
      const problem = problems.get(f.name) ?? "";
      this.#root.querySelector(`#edit-${f.name}-error`)!.textContent = problem;
      if (problem) input?.setAttribute("aria-invalid", "true");
      else input?.removeAttribute("aria-invalid");
    }
    return checked.success ? { ok: true, value } : { ok: false };
  }
}
