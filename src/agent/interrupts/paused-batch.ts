/**
 * The paused batch: what a paused run keeps in `InterruptState.context` (JSON) so a resume, in
 * this page or after a reload, finishes the tool calls it stopped at. Built and read only here.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../tools/issues.js";
import { looseObject, sizedString } from "../shared/lean-schemas.js";
import { InvalidStateError } from "../../errors.js";
import type { InterruptState } from "./interrupt.js";
import type { JsonObject, Message, ToolResultBlock } from "../messages/messages.js";

/** A paused run's tool batch. */
export interface PausedBatch {
  /** The assistant message whose calls are in flight (as they will be recorded). */
  toolUseMessage: Message;
  /** Results the batch already produced. */
  toolResults: ToolResultBlock[];
  /** A hook of the paused batch asked to end the run; it ends once the batch completes. */
  stopLoop?: boolean;
}

const pausedBatchSchema = z.object({
  toolUseMessage: z.object({
    id: z.optional(z.string()),
    role: z.literal("assistant"),
    // The context may come back from a client: calls need real ids, and no result may hide in here.
    content: z
      .array(
        z.union([
          z.object({
            type: z.literal("toolUse"),
            toolUseId: sizedString(1),
            name: z.string(),
            input: z.unknown(),
          }),
          looseObject({ type: z.literal(["text", "reasoning", "image", "document"]) }),
        ]),
      )
      .check(
        z.refine((blocks) => {
          const ids = blocks.flatMap((b) => (b.type === "toolUse" ? [(b as { toolUseId: string }).toolUseId] : []));
          return ids.length > 0 && new Set(ids).size === ids.length;
        }, "must hold tool calls with distinct ids"),
      ),
  }),
  toolResults: z.array(
    looseObject({
      type: z.literal("toolResult"),
      toolUseId: z.string(),
      status: z.literal(["success", "error"]),
      content: z.array(z.unknown()),
    }),
  ),
  stopLoop: z.optional(z.boolean()),
});

/**
 * The paused batch of an agent's interrupt state, validated.
 * @param state - The agent's interrupt state (its `context` may have come from a client).
 * @returns The batch.
 * @throws InvalidStateError when the context is not a paused batch.
 */
export function readPausedBatch(state: InterruptState): PausedBatch {
  const parsed = pausedBatchSchema.safeParse(state.context);
  if (!parsed.success)
    throw new InvalidStateError(`The paused run's context is malformed: ${formatIssues(parsed.error.issues)}`);
  const batch: PausedBatch = {
    toolUseMessage: parsed.data.toolUseMessage as unknown as Message,
    toolResults: parsed.data.toolResults as unknown as ToolResultBlock[],
  };
  if (parsed.data.stopLoop !== undefined) batch.stopLoop = parsed.data.stopLoop;
  return batch;
}

/**
 * Pauses `state` on a batch: activates it and stores the batch as its context.
 * @param state - The agent's interrupt state.
 * @param batch - The calls in flight and the results so far; `stopLoop` is kept only when `true`.
 */
export function writePausedBatch(state: InterruptState, batch: PausedBatch): void {
  state.activated = true;
  state.context = {
    toolUseMessage: batch.toolUseMessage,
    toolResults: batch.toolResults,
    ...(batch.stopLoop ? { stopLoop: true } : {}),
  } as unknown as JsonObject;
}

/**
 * The paused batch's messages as they stand, without validation: the assistant message and its
 * results so far. For showing a paused transcript; `readPausedBatch` guards a resume.
 * @param context - An interrupt state's `context` (or a client's copy of one).
 * @returns The assistant message and the results, or `undefined` when there is no such message.
 */
export function pausedBatchMessages(
  context: unknown,
): { toolUseMessage: Message; toolResults: ToolResultBlock[] } | undefined {
  const ctx = context as { toolUseMessage?: Message; toolResults?: ToolResultBlock[] } | null | undefined;
  if (typeof ctx !== "object" || ctx === null || !ctx.toolUseMessage) return undefined;
  return { toolUseMessage: ctx.toolUseMessage, toolResults: Array.isArray(ctx.toolResults) ? ctx.toolResults : [] };
}
