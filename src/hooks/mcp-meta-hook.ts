/**
 * MCPCallMetaHook: attaches per-call `_meta` to every MCP tool call an agent makes.
 *
 * The hook knows MCP tools only by shape ({@link McpMetaTool}), never by the SDK:
 * the hooks entry must load without the optional `@modelcontextprotocol/sdk` peer.
 *
 * @module
 */
import { formatIssues } from "../agent/tools/issues.js";
import { recordOf } from "../agent/shared/lean-schemas.js";
import type { Agent } from "../agent/agent.js";
import { BeforeToolCallEvent, type InvocationState } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import type { JsonObject, ToolUseBlock } from "../agent/messages/messages.js";
import type { AgentTool } from "../agent/tools/tools.js";
import { describe, UserError } from "../errors.js";
import { defaultLogger, type Logger } from "../logger.js";
import { runContext } from "../agent/run-context.js";
import { splitImportSpec } from "./import-spec.js";

/** `_meta` key of the runner's `toolUseId` (the MCP servers of kaboo read it under this name). */
export const TOOL_CALL_ID_META_KEY = "toolCallId";
/** `_meta` key of `{ agent, thread, run }`: who makes the call. */
export const ACTOR_META_KEY = "kaboo/actor";

/**
 * The tool-replacement seam: an MCP tool that can be re-bound to one call's `_meta`.
 * `kaboo-workflows/mcp` tools implement it; so may any host's own MCP tools.
 */
export interface McpMetaTool extends AgentTool {
  readonly kind: "mcp";
  /**
   * @param meta - The call's `_meta` (a JSON object), merged over any the tool already carries.
   * @returns A delegate with the same name, spec, annotations and validation that sends `meta` with its call.
   */
  withMeta(meta: JsonObject): AgentTool;
}

/**
 * Whether a tool is an MCP tool that accepts per-call `_meta`.
 * @param tool - Any tool (or `undefined`).
 * @returns `true` for `kind: "mcp"` tools with a `withMeta` method.
 */
export function isMcpMetaTool(tool: AgentTool | undefined): tool is McpMetaTool {
  return tool !== undefined && tool.kind === "mcp" && typeof (tool as Partial<McpMetaTool>).withMeta === "function";
}

/** What a provider receives besides the call: the run's context (there is no ambient request context on the Web). */
export interface McpMetaContext {
  readonly agent: Agent;
  readonly invocationState: InvocationState;
  readonly tool: AgentTool;
}

/**
 * Returns metadata for one call: a JSON object, or `null`/`undefined` for none.
 * Anything else is logged and ignored.
 */
export type McpMetaProvider = (toolUse: ToolUseBlock, context: McpMetaContext) => unknown;

/** Options of {@link MCPCallMetaHook}. */
export interface MCPCallMetaHookOptions {
  /** Set `toolCallId` to the runner's `toolUseId` unless the provider gave one. Default `true`. */
  stampToolCallId?: boolean;
  /** Set `kaboo/actor` to `{ agent, thread, run }` unless the provider gave one. Default `false`. */
  stampActor?: boolean;
  /**
   * When the provider throws (or its import spec does not resolve): `"cancel"` (default) fails the
   * call with a message the model reads; `"proceed"` sends the call with the default meta only.
   */
  onProviderError?: "cancel" | "proceed";
  /** Loads an import spec's module. Default: dynamic `import()`; bundlers may need `(s) => import(s)` of their own. */
  importer?: (specifier: string) => Promise<unknown>;
  /** Default {@link defaultLogger}. */
  logger?: Logger;
}

const metaSchema = recordOf(jsonValueSchema);

/**
 * Splits `"module#export"` or `"module:export"` (the last `:` when what follows is an
 * identifier, so `file:///x.js` and `https://…` stay whole); no export name means `default`.
 * @param spec - The import spec.
 * @returns The module specifier and the export name.
 * @throws UserError when the spec is empty or its export name is not an identifier.
 */
export function parseImportSpec(spec: string): { module: string; exportName: string } {
  const parsed = splitImportSpec(spec);
  if (!parsed)
    throw new UserError(`MCPCallMetaHook: "${spec}" is not an import spec; use "module#export" or "module:export".`);
  return parsed;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return Array.isArray(value) ? "array" : (Object.getPrototypeOf(value)?.constructor?.name ?? "object");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Attaches per-call `_meta` to every MCP tool call (Python `MCPCallMetaHook`).
 *
 * On BeforeToolCallEvent, for MCP tools only ({@link isMcpMetaTool}), it computes the call's meta
 * and swaps `event.selectedTool` for `tool.withMeta(meta)` (the tool-replacement seam); other
 * tools are untouched. The meta is, in order of precedence: what the provider returns (a JSON
 * object), then `toolCallId` = the runner's `toolUseId` (`stampToolCallId`), then `kaboo/actor` =
 * `{ agent: agent.name, thread, run }` from `invocationState` (`threadId`, `runId`; `null` when
 * absent) (`stampActor`).
 *
 * The provider is a function, or an import spec string resolved lazily with dynamic `import()` on
 * first use and cached per hook. The Python hook resolves specs at construction; here that needs
 * an `await`, so call {@link MCPCallMetaHook.ready} at startup to fail fast. A spec that does not
 * resolve, or a provider that throws, is logged as an error and (by default) fails the call with a
 * message the model reads: meta may carry identity a server relies on, so the call is not sent
 * without it. A provider that returns something other than a JSON object is logged and ignored.
 *
 * @example
 * ```ts
 * const mcp = await connectMcp({ url: "https://mcp.example.com/mcp", prefix: "merchant___" });
 * const agent = new Agent({
 *   model,
 *   tools: await mcp.tools(),
 *   hooks: [new MCPCallMetaHook((toolUse, { invocationState }) => ({ tenant: invocationState.tenant ?? null }), { stampActor: true })],
 * });
 * ```
 */
export class MCPCallMetaHook implements HookProvider {
  readonly #stampToolCallId: boolean;
  readonly #stampActor: boolean;
  readonly #onProviderError: "cancel" | "proceed";
  readonly #log: Logger;
  readonly #importer: (specifier: string) => Promise<unknown>;
  readonly #spec: { text: string; module: string; exportName: string } | undefined;
  #provider: McpMetaProvider | undefined;
  // Cached once per hook: the provider is configuration shared by every run, not per-run data.
  #loading: Promise<McpMetaProvider> | undefined;

  /**
   * @param provider - A function `(toolUse, context) => object | null`, an import spec
   *   (`"module#export"` / `"module:export"`, export default `default`), or `null`/`undefined` (default: none).
   * @param options - See {@link MCPCallMetaHookOptions}.
   * @throws UserError naming the provider's type when it is neither a function nor a string, or when the spec is malformed.
   */
  constructor(provider?: McpMetaProvider | string | null, options: MCPCallMetaHookOptions = {}) {
    if (typeof provider === "string") {
      this.#spec = { text: provider, ...parseImportSpec(provider) };
    } else if (provider !== undefined && provider !== null && typeof provider !== "function") {
      throw new UserError(
        `MCPCallMetaHook provider must be a function or an import spec string, got ${typeName(provider)}.`,
      );
    } else if (provider) this.#provider = provider;
    this.#stampToolCallId = options.stampToolCallId ?? true;
    this.#stampActor = options.stampActor ?? false;
    this.#onProviderError = options.onProviderError ?? "cancel";
    this.#log = options.logger ?? defaultLogger;
    this.#importer = options.importer ?? ((s) => import(/* @vite-ignore */ s));
  }

  /**
   * Resolves an import-spec provider now (a no-op for a function provider or none).
   * @returns Resolves once the provider is loaded.
   * @throws UserError when the module cannot be imported or its export is not a function.
   */
  async ready(): Promise<void> {
    if (this.#spec) await this.#resolve();
  }

  /** Registers the BeforeToolCall callback. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeToolCallEvent, (event) => this.#onBeforeTool(event));
  }

  #resolve(): Promise<McpMetaProvider> {
    if (this.#provider) return Promise.resolve(this.#provider);
    const spec = this.#spec!;
    this.#loading ??= (async () => {
      let mod: unknown;
      try {
        mod = await this.#importer(spec.module);
      } catch (error) {
        throw new UserError(
          `MCPCallMetaHook: cannot import "${spec.module}" (from "${spec.text}"): ${describe(error)}`,
          {
            cause: error,
          },
        );
      }
      const fn = (mod as Record<string, unknown> | null | undefined)?.[spec.exportName];
      if (typeof fn !== "function") {
        throw new UserError(`MCPCallMetaHook: "${spec.text}" must name a function export, got ${typeName(fn)}.`);
      }
      return (this.#provider = fn as McpMetaProvider);
    })();
    return this.#loading;
  }

  async #onBeforeTool(event: BeforeToolCallEvent): Promise<void> {
    const tool = event.selectedTool;
    if (!isMcpMetaTool(tool) || event.cancel !== false) return;
    const meta: JsonObject = {};
    if (this.#provider || this.#spec) {
      let raw: unknown;
      try {
        const provider = await this.#resolve();
        const context: McpMetaContext = { agent: event.agent, invocationState: event.invocationState, tool };
        // A copy: the provider reads the call, it does not get to rewrite it.
        raw = await provider(structuredClone(event.toolUse), context);
      } catch (error) {
        this.#log.error("MCPCallMetaHook: the meta provider failed.", {
          tool: tool.name,
          toolUseId: event.toolUse.toolUseId,
          error: describe(error),
        });
        if (this.#onProviderError === "cancel") {
          event.cancel = `Tool "${tool.name}" was not called: its call metadata could not be prepared (${describe(error)}).`;
          return;
        }
      }
      if (raw !== undefined && raw !== null) {
        const parsed = isPlainObject(raw) ? metaSchema.safeParse(raw) : undefined;
        if (parsed?.success) Object.assign(meta, parsed.data);
        else {
          this.#log.warn("MCPCallMetaHook: the meta provider must return a JSON object or null; ignoring its result.", {
            tool: tool.name,
            got: typeName(raw),
            ...(parsed ? { problem: formatIssues(parsed.error.issues) } : {}),
          });
        }
      }
    }
    if (this.#stampToolCallId && !Object.hasOwn(meta, TOOL_CALL_ID_META_KEY))
      meta[TOOL_CALL_ID_META_KEY] = event.toolUse.toolUseId;
    if (this.#stampActor && !Object.hasOwn(meta, ACTOR_META_KEY)) {
      meta[ACTOR_META_KEY] = {
        agent: event.agent.name,
        thread: runContext.threadId.find(event.invocationState) ?? null,
        run: runContext.runId.find(event.invocationState) ?? null,
      };
    }
    if (Object.keys(meta).length > 0) event.selectedTool = tool.withMeta(meta);
  }
}
