/**
 * The scripted model the demo runs by default. Its rules (demo/script.ts and what it reads people
 * with) are loaded with the first question, not with the page: the page people first see does not
 * wait for them.
 */
import { ScriptedModel } from "kaboo-workflows";

/**
 * The scripted model.
 * @param delayMs - Pause between streamed chunks. Default 12.
 * @param outage - Model calls still to fail (the page's `?fail=N`, to show Retry); counts down.
 * @returns A ScriptedModel answering with the demo's rules.
 */
export function scriptedModel(delayMs = 12, outage: { failures: number } = { failures: 0 }): ScriptedModel {
  return new ScriptedModel({
    script: async (request) => {
      if (outage.failures > 0) {
        outage.failures--;
        return { error: new Error("The model service did not answer (a simulated outage).") };
      }
      const { respond } = await import("./script.js");
      return respond(request);
    },
    delayMs,
    chunkSize: 3,
    modelId: "scripted-bank",
  });
}
