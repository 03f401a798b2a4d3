/**
 * Who uses this tab: "You" or "Your partner", chosen in the header and kept per tab in
 * `sessionStorage`, so two tabs can be two people. Each run is made under this tab's persona (the
 * agent's principal): a wire over €10,000 asked for by one needs the other's approval.
 *
 * A tab is one person: once it has acted (sent a message or answered a question) its persona is
 * bound to it, through reloads, and the switch is locked. Otherwise one person could ask for a
 * wire, switch to "Your partner" and approve it themselves. (The demo has no sign-in; the other
 * person uses their own tab.)
 */

/** The two people of the demo, by principal. */
export const PERSONAS = [
  { id: "you", label: "You" },
  { id: "partner", label: "Your partner" },
] as const;
/** A persona's principal. */
export type PersonaId = (typeof PERSONAS)[number]["id"];

const KEY = "kaboo-demo:persona";
const BOUND = "kaboo-demo:persona-bound";
/** Why the switch is locked, as the page says it. */
export const BOUND_NOTE =
  "This tab has acted as one person, so it stays that person. To act as the other person, open a new tab.";
let control: HTMLSelectElement | undefined;

/** This tab's persona (default "you"); once bound, the one it acted as, whatever the switch's key says. */
export function persona(): PersonaId {
  return (sessionStorage.getItem(BOUND) ?? sessionStorage.getItem(KEY)) === "partner" ? "partner" : "you";
}

/** Whether a principal is one of the demo's people. */
export function isPersona(principal: string): boolean {
  return PERSONAS.some((p) => p.id === principal);
}

/** A principal in words ("You", "Your partner"); an unknown one as it is. */
export function personaLabel(principal: string | null | undefined): string {
  return PERSONAS.find((p) => p.id === principal)?.label ?? principal ?? "Someone";
}

/** Whether this tab's persona is bound to it (it has acted). */
export function personaBound(): boolean {
  return sessionStorage.getItem(BOUND) !== null;
}

/** Binds this tab to its persona for good: called when it first acts (sends or answers). */
export function bindPersona(): void {
  if (personaBound()) return;
  sessionStorage.setItem(BOUND, persona());
  showBound();
}

function showBound(): void {
  if (!control || !personaBound()) return;
  control.disabled = true;
  control.closest("label")?.setAttribute("title", BOUND_NOTE);
  const note = document.getElementById("persona-note");
  if (note) note.textContent = BOUND_NOTE;
}

/**
 * Wires the persona switch (locked once the tab has acted).
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
  control = select;
  showBound();
  select.addEventListener("change", () => {
    // A locked switch changed anyway (devtools): the tab stays who it was.
    if (personaBound()) {
      select.value = persona();
      return;
    }
    sessionStorage.setItem(KEY, select.value === "partner" ? "partner" : "you");
    document.body.dataset["persona"] = persona();
    changed();
  });
}
