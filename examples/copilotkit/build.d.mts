import type { Server } from "node:http";
/** This example's folder. */
export declare const exampleDir: string;
/** `npm ci` when the lockfile changed since the last install; then links the package under development. */
export declare function installExample(): void;
/** Bundles the page into `outdir`. */
export declare function bundleExample(outdir: string): Promise<void>;
/** Serves `outdir` on 127.0.0.1. */
export declare function serveExample(outdir: string, port?: number): Promise<{ server: Server; url: string }>;
