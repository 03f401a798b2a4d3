/**
 * ToolNameSanitizer: repairs tool names that models garble, or refuses them clearly.
 *
 * The pure matching lives in `./tool-name-sanitizer/sanitize.ts` ({@link sanitizeToolName}).
 *
 * @module
 */
import { AfterModelCallEvent, BeforeToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { defaultLogger, type Logger } from "../logger.js";
import { sanitizeToolName } from "./tool-name-sanitizer/sanitize.js";

export { sanitizeToolName, canonicalToolName, closestToolNames, editDistance } from "./tool-name-sanitizer/sanitize.js";
export type { SanitizeResult } from "./tool-name-sanitizer/sanitize.js";

/** Options of {@link ToolNameSanitizer}. */
export interface ToolNameSanitizerOptions {
  /** Receives a debug line per rewrite and a warning per refusal. Default {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Strips model-injected artifacts from tool names so the runner can find the tool.
 *
 * - `AfterModelCallEvent`: rewrites, in place, the names of the response's
 *   `toolUse` blocks that are not registered but map safely to one registered
 *   tool — so the transcript records the clean name.
 * - `BeforeToolCallEvent` (safety net, e.g. for calls restored from a snapshot):
 *   a still-unknown name is fixed (`event.toolUse` and `event.selectedTool`
 *   replaced) or the call is cancelled with a message naming the closest
 *   registered tools, so the model can try again. Calls another hook already
 *   routed (`selectedTool` set) are left alone.
 *
 * Never maps to an unregistered tool, never picks between two equally good
 * matches, never changes a registered name (see {@link sanitizeToolName}).
 * Register it before hooks that look at tool names (approval gates, guards).
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools, hooks: [new ToolNameSanitizer(), new InterruptHook(rules)] });
 * ```
 */
export class ToolNameSanitizer implements HookProvider {
  readonly #logger: Logger;

  /** @param options - `{ logger = defaultLogger }`. */
  constructor(options: ToolNameSanitizerOptions = {}) {
    this.#logger = options.logger ?? defaultLogger;
  }

  /** Registers the AfterModelCall rewrite and the BeforeToolCall safety net. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(AfterModelCallEvent, (event) => {
      const message = event.stopResponse?.message;
      if (!message) return;
      const { agent } = event;
      for (const block of message.content) {
        // A name the agent knows (nearly every call) costs one look-up, not a list of the names per reply.
        if (block.type !== "toolUse" || agent.tool(block.name)) continue;
        const result = sanitizeToolName(block.name, agent.toolNames());
        if ("name" in result) {
          this.#logger.debug?.("ToolNameSanitizer: rewrote a tool name", { from: block.name, to: result.name });
          block.name = result.name;
        }
      }
    });
    registry.addCallback(BeforeToolCallEvent, (event) => {
      const { agent, toolUse } = event;
      if (event.selectedTool !== undefined || agent.tool(toolUse.name)) return;
      const names = agent.toolNames();
      const result = sanitizeToolName(toolUse.name, names);
      if ("name" in result) {
        event.toolUse = { ...toolUse, name: result.name };
        event.selectedTool = agent.tool(result.name);
        return;
      }
      this.#logger.warn("ToolNameSanitizer: no safe match for a tool name; the call was cancelled.", {
        name: toolUse.name,
        candidates: result.candidates,
        ambiguous: result.ambiguous,
      });
      event.cancel = refusal(toolUse.name, result.candidates, result.ambiguous, names);
    });
  }
}

function refusal(raw: string, candidates: string[], ambiguous: boolean, names: string[]): string {
  const shown = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
  const list = (xs: string[]) => xs.map((x) => `"${x}"`).join(", ");
  if (ambiguous)
    return `Unknown tool ${shown}: it could mean ${list(candidates)}. Call the tool again with its exact name.`;
  if (candidates.length)
    return `Unknown tool ${shown}. Did you mean ${list(candidates)}? Call the tool again with its exact name.`;
  return `Unknown tool ${shown}. Available tools: ${names.length ? list(names) : "none"}.`;
}
