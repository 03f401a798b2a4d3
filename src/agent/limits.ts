/**
 * Defaults an agent reads when it is built (the code that applies them loads with its first run).
 *
 * @module
 */

/** Default of `AgentConfig.maxMediaBytes`: bytes of media one model request may carry (16 MiB). */
export const DEFAULT_MAX_REQUEST_MEDIA_BYTES = 16 * 1024 * 1024;
