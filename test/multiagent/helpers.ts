/** Helpers for the multi-agent tests. */
import { Agent, ScriptedModel, type ScriptedTurn } from "../../src/index.js";

/** An agent that answers every call with `text` (or a responder's result). */
export function textAgent(name: string, text: string | ((input: string) => string)): Agent {
  return new Agent({
    name,
    model: new ScriptedModel({ script: (r) => ({ text: typeof text === "string" ? text : text(r.lastUserText) }) }),
  });
}

/** An agent driven by an explicit script. */
export function scriptedAgent(
  name: string,
  script: ScriptedTurn[],
  extra: Partial<ConstructorParameters<typeof Agent>[0]> = {},
): Agent {
  return new Agent({ name, model: new ScriptedModel({ script, ids: "sequential" }), ...extra });
}
