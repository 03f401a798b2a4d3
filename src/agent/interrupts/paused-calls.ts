/**
 * The ids of a paused batch's calls, read from an interrupt state's context: what the page's session
 * hooks need of a paused batch (the batch itself, read and written strictly, is the runner's:
 * `paused-batch.ts`, which loads with the first run).
 *
 * @module
 */

/**
 * The ids of the calls a paused batch holds, read leniently (a client's snapshot may be stale or
 * damaged; a damaged one names no calls).
 * @param context - An interrupt state's `context` (or a client's copy of one).
 * @returns The `toolUseId`s of its `toolUse` blocks, in order; `[]` when there are none.
 */
export function pausedCallIds(context: unknown): string[] {
  const blocks = (context as { toolUseMessage?: { content?: unknown } } | null | undefined)?.toolUseMessage?.content;
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((b: { type?: unknown; toolUseId?: unknown } | null) =>
    b?.type === "toolUse" && typeof b.toolUseId === "string" ? [b.toolUseId] : [],
  );
}
