/**
 * A module loaded on first use.
 *
 * @module
 */

/**
 * A loader that imports once: every call gets the same promise, and a load that failed (a dropped
 * connection) is tried again by the next call.
 * @param load - The `import()` of the module (a literal one, so that bundlers split it off).
 * @returns The loader.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
