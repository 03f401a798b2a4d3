/**
 * The built-in reference tools: `list_attachments` and `fetch_attachment`.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { tool, type AgentTool, type ToolOutput } from "../../agent/tools/tools.js";
import { getReferenceRegistry, referenceBlock } from "./registry.js";

/**
 * Builds the two reference tools. Both read the run's registry
 * (`invocationState[REFERENCES_KEY]`), so one pair serves concurrent runs.
 *
 * - `list_attachments` → a JSON list of `{ id, name, mimeType, size }`.
 * - `fetch_attachment({ id })` → a text line naming the file and the media as
 *   an image (for `image/*`) or document part; an unknown id is an error
 *   result listing the known ids.
 *
 * @returns `[list_attachments, fetch_attachment]`, both read-only.
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [...referenceTools()], hooks: [new ReferenceHook({ enabled: true, inline: false, toolEnabled: true })] });
 * ```
 */
export function referenceTools(): AgentTool[] {
  const list = tool({
    name: "list_attachments",
    description: "List the files the person attached in this conversation (id, name, type, size).",
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true },
    callback: (_input, { invocationState }) =>
      (getReferenceRegistry(invocationState)?.list() ?? []).map(({ id, name, mimeType, size }) => ({
        id,
        name,
        mimeType,
        size,
      })),
  });
  const fetch = tool({
    name: "fetch_attachment",
    description: "Read one attached file by its id (from the attachments list); returns its content.",
    inputSchema: z.object({ id: z.string().register(z.globalRegistry, { description: "The attachment's id." }) }),
    annotations: { readOnlyHint: true },
    callback: ({ id }, { invocationState }): ToolOutput => {
      const registry = getReferenceRegistry(invocationState);
      const ref = registry?.get(id);
      if (ref === undefined) {
        const known = registry?.list().map((r) => r.id) ?? [];
        return {
          status: "error",
          content: [
            {
              type: "text",
              text: `No attachment has id ${JSON.stringify(id)}. Known ids: ${known.length ? known.join(", ") : "none"}.`,
            },
          ],
        };
      }
      return {
        status: "success",
        content: [
          { type: "text", text: `Attachment ${ref.id}: ${ref.name} (${ref.mimeType}, ${ref.size} bytes).` },
          referenceBlock(ref),
        ],
      };
    },
  });
  return [list, fetch];
}
