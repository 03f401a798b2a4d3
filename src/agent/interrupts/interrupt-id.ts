/**
 * The interrupt-id format, built and parsed here and nowhere else.
 *
 * Ids are deterministic, so a resumed run finds the answer to the question it asked before:
 *
 * - `hook:beforeToolCall:<toolUseId>:<name>`: a BeforeToolCall hook paused a tool call;
 * - `tool:<toolUseId>:<name>`: the tool itself asked (`ToolContext.interrupt`);
 * - `hook:beforeNodeCall:<nodeId>:<name>`: a BeforeNodeCall hook paused an orchestrator's node;
 * - `node:<nodeId>:<innerId>`: a paused node's own interrupt, seen from its orchestrator
 *   (`innerId` is any id of this list, so nodes nest).
 *
 * The name (or inner id) is the tail and may hold anything, `:` included. The call or node id in
 * the middle has `%` and `:` percent-encoded, so `a:b` and `a` never claim each other's ids; an id
 * without either character is written as it is, which keeps every id of earlier versions valid.
 *
 * @module
 */

/** Interrupt-id prefix of a BeforeToolCall hook. */
const TOOL_HOOK = "hook:beforeToolCall:";
/** Interrupt-id prefix of a tool's own question. */
const TOOL = "tool:";
/** Interrupt-id prefix of a BeforeNodeCall hook. */
const NODE_HOOK = "hook:beforeNodeCall:";
/** Interrupt-id prefix of a nested node's interrupt. */
const NODE = "node:";

/** The parts of an interrupt id, by who raised the interrupt. */
export type InterruptIdParts =
  /** A BeforeToolCall hook paused the call `toolUseId`. */
  | { kind: "toolHook"; toolUseId: string; name: string }
  /** The tool of call `toolUseId` asked. */
  | { kind: "tool"; toolUseId: string; name: string }
  /** A BeforeNodeCall hook paused the node `nodeId`. */
  | { kind: "nodeHook"; nodeId: string; name: string }
  /** The node `nodeId` paused; `innerId` is its own interrupt's id. */
  | { kind: "node"; nodeId: string; innerId: string };

const PREFIXES = [
  [TOOL_HOOK, "toolHook"],
  [TOOL, "tool"],
  [NODE_HOOK, "nodeHook"],
  [NODE, "node"],
] as const;

function encode(part: string): string {
  return part.replaceAll("%", "%25").replaceAll(":", "%3A");
}

function decode(part: string): string | undefined {
  // Only the two escapes `encode` writes; anything else with a `%` was not built here.
  if (/%(?!25|3A)/.test(part)) return undefined;
  return part.replace(/%3A/g, ":").replace(/%25/g, "%");
}

/**
 * Builds an interrupt id.
 * @param parts - Who raised it and for what.
 * @returns The id, e.g. `hook:beforeToolCall:call_1:kaboo_approval`.
 * @example
 * ```ts
 * formatInterruptId({ kind: "tool", toolUseId: "call_1", name: "confirm" }); // "tool:call_1:confirm"
 * ```
 */
export function formatInterruptId(parts: InterruptIdParts): string {
  switch (parts.kind) {
    case "toolHook":
      return `${TOOL_HOOK}${encode(parts.toolUseId)}:${parts.name}`;
    case "tool":
      return `${TOOL}${encode(parts.toolUseId)}:${parts.name}`;
    case "nodeHook":
      return `${NODE_HOOK}${encode(parts.nodeId)}:${parts.name}`;
    case "node":
      return `${NODE}${encode(parts.nodeId)}:${parts.innerId}`;
    default:
      return unreachable(parts);
  }
}

/**
 * Reads an interrupt id back into its parts.
 * @param id - Any string (ids come back from clients).
 * @returns The parts, or `undefined` when `id` is not of a known form.
 */
export function parseInterruptId(id: string): InterruptIdParts | undefined {
  for (const [prefix, kind] of PREFIXES) {
    if (!id.startsWith(prefix)) continue;
    const rest = id.slice(prefix.length);
    const colon = rest.indexOf(":");
    if (colon < 0) return undefined;
    const owner = decode(rest.slice(0, colon));
    const tail = rest.slice(colon + 1);
    if (owner === undefined) return undefined;
    if (kind === "node") return { kind, nodeId: owner, innerId: tail };
    if (kind === "nodeHook") return { kind, nodeId: owner, name: tail };
    return { kind, toolUseId: owner, name: tail };
  }
  return undefined;
}

/** Id of a BeforeToolCall hook's interrupt for call `toolUseId`. */
export function toolHookInterruptId(toolUseId: string, name: string): string {
  return formatInterruptId({ kind: "toolHook", toolUseId, name });
}

/** Id of the interrupt a tool raises itself for call `toolUseId`. */
export function toolInterruptId(toolUseId: string, name: string): string {
  return formatInterruptId({ kind: "tool", toolUseId, name });
}

/** Id of a BeforeNodeCall hook's interrupt for node `nodeId`. */
export function nodeHookInterruptId(nodeId: string, name: string): string {
  return formatInterruptId({ kind: "nodeHook", nodeId, name });
}

/** Id under which an orchestrator records its node's interrupt `innerId`. */
export function nodeInterruptId(nodeId: string, innerId: string): string {
  return formatInterruptId({ kind: "node", nodeId, innerId });
}

/**
 * The tool call an interrupt belongs to (a tool hook's or the tool's own).
 * @returns The `toolUseId`, or `undefined` for node interrupts and foreign ids.
 */
export function interruptCallId(id: string): string | undefined {
  const parts = parseInterruptId(id);
  return parts?.kind === "toolHook" || parts?.kind === "tool" ? parts.toolUseId : undefined;
}

/**
 * Whether an interrupt was raised for call `toolUseId`.
 * @param kinds - Which raisers count. Default both a tool hook and the tool itself.
 */
export function isCallInterrupt(
  id: string,
  toolUseId: string,
  kinds: readonly ("toolHook" | "tool")[] = ["toolHook", "tool"],
): boolean {
  const parts = parseInterruptId(id);
  return (
    (parts?.kind === "toolHook" || parts?.kind === "tool") &&
    parts.toolUseId === toolUseId &&
    kinds.includes(parts.kind)
  );
}

/**
 * Whether an interrupt belongs to node `nodeId` (its hook's or one the node raised inside).
 * @param kinds - Which raisers count. Default both.
 */
export function isNodeInterrupt(
  id: string,
  nodeId: string,
  kinds: readonly ("nodeHook" | "node")[] = ["nodeHook", "node"],
): boolean {
  const parts = parseInterruptId(id);
  return (
    (parts?.kind === "nodeHook" || parts?.kind === "node") && parts.nodeId === nodeId && kinds.includes(parts.kind)
  );
}

/**
 * The node's own id of an interrupt its orchestrator recorded as `node:<nodeId>:<innerId>`.
 * @returns `innerId`, or `undefined` when `id` is not one of node `nodeId`'s.
 */
export function innerInterruptId(id: string, nodeId: string): string | undefined {
  const parts = parseInterruptId(id);
  return parts?.kind === "node" && parts.nodeId === nodeId ? parts.innerId : undefined;
}

/**
 * The name of the `n`th interrupt of one name raised by one call (a delegate's repeated question):
 * the name itself, then `name#2`, `name#3`, …
 */
export function repeatedInterruptName(name: string, n: number): string {
  return n > 1 ? `${name}#${n}` : name;
}

function unreachable(value: never): never {
  throw new TypeError(`Unknown interrupt id kind: ${JSON.stringify(value)}`);
}
