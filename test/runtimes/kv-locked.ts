/**
 * Local Deno KV is SQLite: a second process may find the file locked for a moment (opening and
 * migrating it can take more than a second on a loaded machine). Nothing was written then, so the
 * Deno entries wait it out here. Web APIs only.
 */

/** Runs `step` again while it fails with "database is locked", for up to 30 s. */
export async function retryLocked<T>(step: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > deadline || !String(error).includes("database is locked")) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
