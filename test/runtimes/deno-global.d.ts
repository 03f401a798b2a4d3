/**
 * The parts of Deno's global object the Deno entries of the runtime tests use (they run in Deno,
 * bundled by test/runtimes/bundle.ts; Node never runs them), declared once for all of them.
 */
import type { KvAuditLike, KvGrantsLike, KvLike } from "../../src/stores/deno-kv.js";

declare global {
  /** Deno's global, as far as the entries use it. */
  const Deno: {
    args: string[];
    openKv(path?: string): Promise<
      KvLike &
        KvAuditLike &
        KvGrantsLike & {
          close(): void;
          list(selector: { prefix: unknown[] }): AsyncIterable<{ key: unknown[]; value: unknown }>;
        }
    >;
    serve(
      options: { port: number; hostname: string; onListen(addr: { port: number }): void },
      handler: (request: Request) => Promise<Response>,
    ): unknown;
    readTextFileSync(path: string): string;
    writeTextFileSync(path: string, text: string, options?: { append?: boolean }): void;
  };
}
