/** Bundles the Node example and serves it (default: any free port on 127.0.0.1, PGlite in .tmp/node-example-data). */
export declare function startExample(options?: {
  port?: number;
  hostname?: string;
  databaseUrl?: string;
  dataDir?: string;
  secret?: string;
  /** Where transfers are booked (POST JSON with an idempotency-key header). */
  bankApiUrl?: string;
}): Promise<{ url: string; close: () => Promise<void> }>;
