/**
 * The model the settings choose: the scripted one by default, or a real provider whose code is
 * loaded only when it is chosen.
 */
import type { Model } from "kaboo-workflows";
import { scriptedModel } from "./scripted.js";
import type { ModelSettings } from "./settings.js";

/** Model calls of the scripted model still to fail (`?fail=N`), shared by every runner of the page. */
const outage = { failures: 0 };

/**
 * Makes the models the settings choose. The providers' code is loaded only when one is chosen, so
 * the page people usually see (the scripted model) does not download it.
 * @param settings - Which model.
 * @param delayMs - The scripted model's pause between chunks.
 * @param failures - Scripted model calls to fail first (to try Retry). Default 0.
 * @returns A function that makes one model per runner.
 */
export async function modelMaker(settings: ModelSettings, delayMs: number, failures = 0): Promise<() => Model> {
  if (settings.provider === "openai") {
    const { OpenAIChatModel } = await import("kaboo-workflows/models/openai");
    return () =>
      new OpenAIChatModel({
        model: settings.model,
        baseUrl: settings.baseUrl || "https://api.openai.com/v1",
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
  }
  if (settings.provider === "anthropic") {
    const { AnthropicModel } = await import("kaboo-workflows/models/anthropic");
    return () =>
      new AnthropicModel({
        model: settings.model,
        maxTokens: 2048,
        dangerouslyAllowBrowser: true,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      });
  }
  outage.failures = failures;
  return () => scriptedModel(delayMs, outage);
}
