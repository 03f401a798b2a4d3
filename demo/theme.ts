/**
 * The page's look: it follows the system's light or dark setting until the person picks one (the
 * toggle in the header, or the assistant's `set_theme` browser tool); the pick is remembered.
 */
import type { Tool as AguiTool } from "@ag-ui/core";

/** The looks the page has. */
export const THEMES = ["dark", "light", "ocean", "forest", "sunset"] as const;
const KEY = "kaboo-demo:theme";
const system = matchMedia("(prefers-color-scheme: dark)");

function apply(theme: string): void {
  document.documentElement.dataset["theme"] = theme;
  const dark = theme === "dark";
  const toggle = document.querySelector<HTMLButtonElement>("#theme-toggle");
  if (!toggle) return;
  toggle.setAttribute("aria-pressed", String(dark));
  toggle.textContent = dark ? "☀" : "☾";
  toggle.title = dark ? "Use the light theme" : "Use the dark theme";
}

/** The theme in use: the person's pick, else the system's. */
export function currentTheme(): string {
  return localStorage.getItem(KEY) ?? (system.matches ? "dark" : "light");
}

/** Uses and remembers a theme. */
export function setTheme(theme: string): void {
  localStorage.setItem(KEY, theme);
  apply(theme);
}

/** Applies the theme, follows the system's changes until a pick, and wires the toggle. */
export function setupTheme(toggle: HTMLButtonElement): void {
  apply(currentTheme());
  system.addEventListener("change", () => {
    if (localStorage.getItem(KEY) === null) apply(currentTheme());
  });
  toggle.addEventListener("click", () => setTheme(currentTheme() === "dark" ? "light" : "dark"));
}

/** The browser tool: the model may change how this page looks. */
export const THEME_TOOL: AguiTool = {
  name: "set_theme",
  description: "Changes the look of the banking app the person is using.",
  parameters: { type: "object", properties: { theme: { type: "string", enum: [...THEMES] } }, required: ["theme"] },
};

/** Runs `set_theme` in the page. */
export function setThemeTool(args: Record<string, unknown>) {
  const theme = String(args["theme"]);
  if (!(THEMES as readonly string[]).includes(theme))
    return {
      status: "error" as const,
      content: [{ type: "text" as const, text: `Unknown theme "${theme}". Use one of ${THEMES.join(", ")}.` }],
    };
  setTheme(theme);
  return `The page now uses the ${theme} theme.`;
}
