/**
 * Who uses this tab: "You" or "Your partner", switched in the header and kept per tab in
 * `sessionStorage`, so two tabs can be two people. Each run is made under this tab's persona (the
 * agent's principal): a wire over €10,000 asked for by one needs the other's approval.
 */

/** The two people of the demo, by principal. */
export const PERSONAS = [
  { id: "you", label: "You" },
  { id: "partner", label: "Your partner" },
] as const;
/** A persona's principal. */
export type PersonaId = (typeof PERSONAS)[number]["id"];

const KEY = "kaboo-demo:persona";

/** This tab's persona (default "you"). */
export function persona(): PersonaId {
  return sessionStorage.getItem(KEY) === "partner" ? "partner" : "you";
}

/** Whether a principal is one of the demo's people. */
export function isPersona(principal: string): boolean {
  return PERSONAS.some((p) => p.id === principal);
}

/** A principal in words ("You", "Your partner"); an unknown one as it is. */
export function personaLabel(principal: string | null | undefined): string {
  return PERSONAS.find((p) => p.id === principal)?.label ?? principal ?? "Someone";
}

/**
 * Wires the persona switch.
 * @param select - The `<select>` (its options are filled here).
 * @param changed - Called after the person switches.
 */
export function setupPersona(select: HTMLSelectElement, changed: () => void): void {
  select.replaceChildren(
    ...PERSONAS.map((p) => {
      const option = document.createElement("option");
      option.value = p.id;
      option.textContent = p.label;
      return option;
    }),
  );
  select.value = persona();
  document.body.dataset["persona"] = persona();
  select.addEventListener("change", () => {
    sessionStorage.setItem(KEY, select.value === "partner" ? "partner" : "you");
    document.body.dataset["persona"] = persona();
    changed();
  });
}
