/**
 * The page's frame on narrow screens: the conversations and the side panel are drawers, each
 * with a close button; Esc or a tap on the scrim closes them and gives the focus back to the
 * button that opened them.
 */
type Drawer = "threads" | "panel";

const q = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;

function openDrawer(): Drawer | undefined {
  if (document.body.classList.contains("show-threads")) return "threads";
  if (document.body.classList.contains("show-panel")) return "panel";
  return undefined;
}

function toggle(name: Drawer, open: boolean, moveFocus = true): void {
  const was = openDrawer();
  document.body.classList.remove("show-threads", "show-panel");
  document.body.classList.toggle(`show-${name}`, open);
  for (const d of ["threads", "panel"] as const)
    q(`#toggle-${d}`).setAttribute("aria-expanded", String(open && d === name));
  q("#scrim").hidden = !open;
  if (!moveFocus) return;
  if (open) q<HTMLButtonElement>(`#${name} .drawer-close`).focus();
  else if (was) q<HTMLButtonElement>(`#toggle-${was}`).focus();
}

/** Closes an open drawer, scrim included, without moving the focus (a conversation was chosen in it). */
export function closeDrawers(): void {
  if (openDrawer()) toggle("threads", false, false);
}

/** Wires the drawer buttons, the scrim and Esc. */
export function setupChrome(): void {
  q("#toggle-threads").addEventListener("click", () => toggle("threads", openDrawer() !== "threads"));
  q("#toggle-panel").addEventListener("click", () => toggle("panel", openDrawer() !== "panel"));
  q("#scrim").addEventListener("click", () => toggle("threads", false));
  for (const b of document.querySelectorAll<HTMLButtonElement>("[data-close-drawer]"))
    b.addEventListener("click", () => toggle("threads", false));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && openDrawer()) toggle("threads", false);
  });
}
