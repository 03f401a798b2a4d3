/** Bundles the AI SDK example and serves it (default: any free port on 127.0.0.1). */
export declare function startExample(options?: {
  port?: number;
  hostname?: string;
}): Promise<{ url: string; close: () => Promise<void> }>;
