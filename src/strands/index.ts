/**
 * `kaboo-workflows/strands`: the hooks on a real Strands TypeScript agent (`@strands-agents/sdk`, an
 * optional peer). `kabooPlugin(strands, { hooks })` maps Strands' events to ours, so each hook keeps its
 * one implementation: `InterruptHook`'s questions pause the Strands agent with Strands' own interrupts,
 * its answers resume it, and every call goes through the execution ledger (claimed before it runs,
 * settled after, the outcome question after a crash), so an approved call runs once.
 *
 * @module
 */
export { kabooPlugin } from "./plugin.js";
export type { KabooPluginOptions, KabooStrandsPlugin } from "./plugin.js";
export { CLAIM_ORDER, SETTLE_ORDER } from "./tool-calls.js";
export type {
  StrandsAfterModelCallEvent,
  StrandsAfterToolCallEvent,
  StrandsAgent,
  StrandsAgentResult,
  StrandsAgentResultEvent,
  StrandsBeforeModelCallEvent,
  StrandsBeforeToolCallEvent,
  StrandsDocumentFormat,
  StrandsEventClass,
  StrandsHookHost,
  StrandsHookableEvent,
  StrandsHookOptions,
  StrandsImageFormat,
  StrandsInterrupt,
  StrandsInterruptParams,
  StrandsInvocationEvent,
  StrandsJson,
  StrandsMessage,
  StrandsResultPart,
  StrandsSdk,
  StrandsStateStore,
  StrandsTool,
  StrandsToolResult,
  StrandsToolUse,
} from "./sdk.js";
