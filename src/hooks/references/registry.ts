/**
 * The run's reference registry: what the person attached in this conversation
 * (AG-UI binary/image/document content parts of user messages), filled by the host.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { sizedString } from "../../agent/shared/lean-schemas.js";
import type { InvocationState } from "../../agent/events.js";
import type { DocumentBlock, ImageBlock } from "../../agent/messages/messages.js";
import { defaultLogger, type Logger } from "../../logger.js";

/** `invocationState` key of the run's {@link ReferenceRegistry}. */
export const REFERENCES_KEY = "kabooReferences";

/** One attachment. Exactly one of `data` (base64, no `data:` prefix) or `url`. */
export interface Reference {
  id: string;
  name: string;
  mimeType: string;
  /** Bytes. */
  size: number;
  data?: string;
  url?: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_PROTOCOLS = new Set(["https:", "data:", "blob:"]);

/** zod schema of a {@link Reference} as the host hands it over (untrusted). */
export const referenceSchema = z
  .object({
    id: z.string().check(z.regex(/^[\w.:-]{1,256}$/, "ids are letters, digits, _ . : -")),
    name: sizedString(0, 1024),
    mimeType: z.string().check(z.regex(/^[\w.+-]+\/[\w.+-]+$/)),
    size: z.int().check(z.nonnegative()),
    data: z.optional(z.string().check(z.regex(BASE64, "not base64"))),
    url: z.optional(
      z
        .string()
        .check(
          z.refine(
            (u) => URL.canParse(u) && URL_PROTOCOLS.has(new URL(u).protocol),
            "not an https:, data: or blob: URL",
          ),
        ),
    ),
  })
  .check(z.refine((r) => (r.data === undefined) !== (r.url === undefined), "needs exactly one of data or url"));

/** The run's attachments, by id, in the order given. */
export class ReferenceRegistry {
  readonly #byId = new Map<string, Reference>();

  /**
   * @param entries - What the host collected (untrusted); malformed entries and repeated ids are skipped and logged.
   * @param logger - Default {@link defaultLogger}.
   */
  constructor(entries: readonly unknown[] = [], logger: Logger = defaultLogger) {
    let bad = 0;
    for (const entry of entries) {
      const parsed = referenceSchema.safeParse(entry);
      if (!parsed.success || this.#byId.has(parsed.data.id)) bad++;
      else this.#byId.set(parsed.data.id, parsed.data as Reference);
    }
    if (bad > 0) logger.warn(`kaboo: the reference registry skipped ${bad} malformed or repeated attachment(s).`);
  }

  /** Every attachment, in order. */
  list(): Reference[] {
    return [...this.#byId.values()];
  }

  /** The attachment with this id, or `undefined`. */
  get(id: string): Reference | undefined {
    return this.#byId.get(id);
  }

  /** How many attachments there are. */
  get size(): number {
    return this.#byId.size;
  }
}

/**
 * Creates the run's registry and stores it under {@link REFERENCES_KEY}.
 * @param invocationState - The run's state.
 * @param entries - `{ id, name, mimeType, size, data? | url? }` objects (untrusted). Default none.
 * @param logger - Default {@link defaultLogger}.
 * @returns The registry.
 * @example
 * ```ts
 * createReferenceRegistry(invocationState, [{ id: "ref_1", name: "plan.pdf", mimeType: "application/pdf", size: 48213, data }]);
 * ```
 */
export function createReferenceRegistry(
  invocationState: InvocationState,
  entries: readonly unknown[] = [],
  logger: Logger = defaultLogger,
): ReferenceRegistry {
  const registry = new ReferenceRegistry(entries, logger);
  invocationState[REFERENCES_KEY] = registry;
  return registry;
}

/**
 * The run's registry, if the host created one.
 * @returns The {@link ReferenceRegistry}, or `undefined`.
 */
export function getReferenceRegistry(invocationState: InvocationState): ReferenceRegistry | undefined {
  const value = invocationState[REFERENCES_KEY];
  return value instanceof ReferenceRegistry ? value : undefined;
}

/** An attachment as a content block: `image` for `image/*`, `document` otherwise. */
export function referenceBlock(ref: Reference): ImageBlock | DocumentBlock {
  const block: ImageBlock | DocumentBlock = {
    type: ref.mimeType.startsWith("image/") ? "image" : "document",
    mimeType: ref.mimeType,
    name: ref.name,
  };
  if (ref.data !== undefined) block.data = ref.data;
  else if (ref.url !== undefined) block.url = ref.url;
  return block;
}

/** First line of the manifest block (how an earlier manifest is found in the transcript). */
export const MANIFEST_HEADER = "<attachments>";

// Names come from the person's files: one line each, bounded, so a name cannot
// forge manifest lines or close the block.
function cleanName(name: string): string {
  const flat = name.replace(/[\u0000-\u001f\u007f<>]+/g, " ").trim();
  return (flat.length > 200 ? `${flat.slice(0, 200)}…` : flat) || "(unnamed)";
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The manifest text: one line per attachment (`- name (type, size) id: <id>`)
 * and a closing line that says how to read them.
 */
export function renderManifest(refs: readonly Reference[], options: { toolEnabled: boolean; inline: boolean }): string {
  const lines = [MANIFEST_HEADER, "The person attached these files in this conversation:"];
  for (const r of refs) lines.push(`- ${cleanName(r.name)} (${r.mimeType}, ${formatSize(r.size)}) id: ${r.id}`);
  if (options.toolEnabled)
    lines.push("Call list_attachments to list them and fetch_attachment with an id to read one.");
  else if (options.inline)
    lines.push("Their content is included with the person's latest message; no tool can fetch them.");
  else lines.push("No tool can open them here; ask the person to paste what you need.");
  lines.push("</attachments>");
  return lines.join("\n");
}
