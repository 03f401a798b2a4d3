/**
 * The logger the hooks write to: a tiny injectable interface with a console default.
 *
 * Hooks take `{ logger }` as an option so hosts can route warnings to their own
 * telemetry (and tests can capture them) without patching `console`.
 *
 * @module
 */

/** Where hooks report skips and failures. `data` is a plain object with details. */
export interface Logger {
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
  debug?(message: string, data?: Record<string, unknown>): void;
}

function write(fn: (...args: unknown[]) => void, message: string, data?: Record<string, unknown>): void {
  if (data === undefined) fn(message);
  else fn(message, data);
}

/**
 * The default logger: `console.warn` / `console.error` / `console.debug`.
 *
 * @example
 * ```ts
 * const guard = new StopGuard(check, { logger: { ...defaultLogger, warn: (m, d) => telemetry.warn(m, d) } });
 * ```
 */
export const defaultLogger: Logger = {
  warn(message, data) {
    write(console.warn, message, data);
  },
  error(message, data) {
    write(console.error, message, data);
  },
  debug(message, data) {
    write(console.debug, message, data);
  },
};
