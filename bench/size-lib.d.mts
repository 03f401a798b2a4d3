/** The repository root. */
export declare const root: string;
/** The version of zod that measurements with `zod` ("4" or "3") use. */
export declare function zodVersion(zod: "4" | "3"): string;
/** Bytes of one module source as an app ships it: the initial chunk, and what loads later (gzip). */
export declare function measure(
  contents: string,
  options?: { zod?: "4" | "3"; external?: string[]; loader?: "ts" | "js" },
): Promise<{ raw: number; min: number; gzip: number; lazyGzip: number }>;
/** The tool schemas of a typical app, one way per schema library. */
export declare const TOOL_KINDS: Record<string, [string, string]>;
/** The module of a typical app slice, from `dist/` or from `src/`. */
export declare function sliceSource(tools: string, from?: "dist" | "src"): string;
/** The optional peers, never counted in a size. */
export declare function optionalPeers(): string[];
