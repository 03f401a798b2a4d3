/**
 * ReferenceHook: tells an in-scope agent what the person attached (a manifest
 * in the transcript) and, for inline agents, shows the media to the model.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { BeforeInvocationEvent, BeforeModelCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { Message } from "../agent/messages/messages.js";
import type { ModelInput, ModelInputContext } from "../agent/middleware.js";
import { defaultLogger, type Logger } from "../logger.js";
import { getReferenceRegistry, MANIFEST_HEADER, referenceBlock, renderManifest } from "./references/registry.js";

export {
  createReferenceRegistry,
  getReferenceRegistry,
  MANIFEST_HEADER,
  type Reference,
  ReferenceRegistry,
  REFERENCES_KEY,
  referenceSchema,
} from "./references/registry.js";
export { referenceTools } from "./references/tools.js";

/** Options of {@link ReferenceHook}. */
export interface ReferenceHookOptions {
  /** Whether this agent is in scope for references; `false` makes the hook a no-op. */
  enabled: boolean;
  /** Whether resolved media blocks are also put before the model, for a vision/document-capable model. */
  inline: boolean;
  /** Whether `list_attachments`/`fetch_attachment` are registered (changes the manifest's wording only). */
  toolEnabled: boolean;
  /** Default {@link defaultLogger}. */
  logger?: Logger;
}

// The latest user message that is a prompt (not a message of tool results).
function latestPrompt(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "user" && !m.content.some((b) => b.type === "toolResult")) return i;
  }
  return -1;
}

function latestManifest(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    for (const b of (messages[i] as Message).content)
      if (b.type === "text" && b.text.startsWith(MANIFEST_HEADER)) return b.text;
  }
  return undefined;
}

/**
 * Injects the reference manifest for an in-scope agent, from the run's
 * registry (`invocationState[REFERENCES_KEY]`, see `createReferenceRegistry`).
 *
 * The manifest is one text block, appended to the latest user prompt of the
 * transcript (the message is replaced by a copy; the original object is left
 * alone) just before the invocation's first model call, once the input is in
 * the transcript. Its exact form:
 *
 * ```text
 * <attachments>
 * The person attached these files in this conversation:
 * - plan.pdf (application/pdf, 47.1 KB) id: ref_1
 * Call list_attachments to list them and fetch_attachment with an id to read one.
 * </attachments>
 * ```
 *
 * (the last line depends on `toolEnabled`/`inline`). It is added only when it
 * differs from the latest manifest already in the transcript, so repeated
 * invocations, resumes and reloaded histories do not duplicate it; a new
 * attachment produces a new manifest.
 *
 * With `inline`, a model-input middleware (installed once per agent) prepends
 * every attachment as an image or document block to the latest user prompt of
 * the copy sent to the model; the transcript never holds the bytes. Providers
 * that cannot take a media type replace it with a short note.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: referenceTools(), hooks: [new ReferenceHook({ enabled: true, inline: true, toolEnabled: true })] });
 * createReferenceRegistry(invocationState, attachments);
 * await agent.invoke("Summarise the plan I attached", { invocationState });
 * ```
 */
export class ReferenceHook implements HookProvider {
  readonly enabled: boolean;
  readonly inline: boolean;
  readonly toolEnabled: boolean;
  readonly #logger: Logger;
  readonly #installed = new WeakSet<Agent>();

  /** @param options - `enabled`, `inline`, `toolEnabled` (all required), `logger` (default console). */
  constructor(options: ReferenceHookOptions) {
    this.enabled = options.enabled;
    this.inline = options.inline;
    this.toolEnabled = options.toolEnabled;
    this.#logger = options.logger ?? defaultLogger;
  }

  registerHooks(registry: HookRegistry): void {
    if (!this.enabled) return;
    if (this.inline) registry.addCallback(BeforeInvocationEvent, (e) => this.#install(e.agent));
    registry.addCallback(BeforeModelCallEvent, (e) => this.#injectManifest(e));
  }

  #install(agent: Agent): void {
    if (this.#installed.has(agent)) return;
    this.#installed.add(agent);
    agent.modelInput.use(function referenceMedia(input: ModelInput, context: ModelInputContext): ModelInput {
      const refs = getReferenceRegistry(context.invocationState)?.list() ?? [];
      const i = latestPrompt(input.messages);
      if (refs.length === 0 || i < 0) return input;
      const messages = input.messages.slice();
      const prompt = messages[i] as Message;
      messages[i] = { ...prompt, content: [...refs.map(referenceBlock), ...prompt.content] };
      return { ...input, messages };
    });
  }

  #injectManifest(event: BeforeModelCallEvent): void {
    const refs = getReferenceRegistry(event.invocationState)?.list() ?? [];
    if (refs.length === 0) return;
    const { agent } = event;
    const manifest = renderManifest(refs, { toolEnabled: this.toolEnabled, inline: this.inline });
    if (latestManifest(agent.messages) === manifest) return;
    const i = latestPrompt(agent.messages);
    if (i < 0) {
      this.#logger.debug?.("kaboo: ReferenceHook found no user prompt to attach the manifest to.", {
        agent: agent.name,
      });
      return;
    }
    const prompt = agent.messages[i] as Message;
    agent.messages[i] = { ...prompt, content: [...prompt.content, { type: "text", text: manifest }] };
  }
}
