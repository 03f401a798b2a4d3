/**
 * Defaults an agent reads when it is built (the code that applies them loads with its first run).
 *
 * @module
 */

/** Default of `AgentConfig.maxMediaBytes`: bytes of media one model request may carry (16 MiB). */
export const DEFAULT_MAX_REQUEST_MEDIA_BYTES = 16 * 1024 * 1024;

/** Default of `AgentConfig.toolTimeoutMs`: the deadline of one tool call (5 minutes). */
export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60 * 1000;

/** Default of `AgentConfig.toolGraceMs`: how long a call whose signal aborted has to settle before it is abandoned (5 s). */
export const DEFAULT_TOOL_GRACE_MS = 5_000;
