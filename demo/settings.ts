/**
 * The model settings panel. Everything, the key included, lives in sessionStorage only: it is
 * gone when the tab closes and never reaches localStorage or IndexedDB.
 */
import * as z from "zod/v4";

const KEY = "kaboo-demo:model";

/** Which model answers. */
export interface ModelSettings {
  provider: "scripted" | "openai" | "anthropic";
  baseUrl: string;
  model: string;
  apiKey: string;
}

const schema = z.object({
  provider: z.enum(["scripted", "openai", "anthropic"]),
  baseUrl: z.string(),
  model: z.string(),
  apiKey: z.string(),
});

const SCRIPTED: ModelSettings = { provider: "scripted", baseUrl: "", model: "", apiKey: "" };

/** The saved settings, or the scripted model. */
export function loadSettings(): ModelSettings {
  try {
    const parsed = schema.safeParse(JSON.parse(sessionStorage.getItem(KEY) ?? "null"));
    return parsed.success ? parsed.data : SCRIPTED;
  } catch {
    return SCRIPTED;
  }
}

/** A short name for the header badge. */
export function modelLabel(s: ModelSettings): string {
  if (s.provider === "scripted") return "Scripted model · offline";
  return `${s.provider === "openai" ? "OpenAI-compatible" : "Anthropic"} · ${s.model}`;
}

/**
 * Wires the settings form (inside a `<dialog>`).
 * @param onChange - Called with the new settings after Save.
 */
export function setupSettings(dialog: HTMLDialogElement, onChange: (s: ModelSettings) => void): void {
  const form = dialog.querySelector("form")!;
  const field = <T extends HTMLInputElement | HTMLSelectElement>(name: string) => form.elements.namedItem(name) as T;
  const provider = field<HTMLSelectElement>("provider");
  const error = dialog.querySelector<HTMLElement>(".form-error")!;
  const sync = () => {
    const p = provider.value;
    form.dataset["provider"] = p;
    const base = field<HTMLInputElement>("baseUrl");
    base.placeholder = p === "anthropic" ? "https://api.anthropic.com" : "http://localhost:11434/v1";
    field<HTMLInputElement>("model").placeholder = p === "anthropic" ? "claude-sonnet-4-5" : "llama3.2";
  };
  const fill = () => {
    const s = loadSettings();
    provider.value = s.provider;
    field<HTMLInputElement>("baseUrl").value = s.baseUrl;
    field<HTMLInputElement>("model").value = s.model;
    field<HTMLInputElement>("apiKey").value = s.apiKey;
    error.textContent = "";
    sync();
  };
  provider.addEventListener("change", sync);
  dialog.addEventListener("close", () => fill());
  fill();
  form.addEventListener("submit", (e) => {
    const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
    if (submitter?.value === "cancel") return;
    const next: ModelSettings = {
      provider: provider.value as ModelSettings["provider"],
      baseUrl: field<HTMLInputElement>("baseUrl").value.trim(),
      model: field<HTMLInputElement>("model").value.trim(),
      apiKey: field<HTMLInputElement>("apiKey").value.trim(),
    };
    if (next.provider !== "scripted" && !next.model) {
      e.preventDefault();
      error.textContent = "Name the model to use.";
      field<HTMLInputElement>("model").focus();
      return;
    }
    if (next.provider === "scripted") Object.assign(next, SCRIPTED);
    sessionStorage.setItem(KEY, JSON.stringify(next));
    onChange(next);
  });
}
