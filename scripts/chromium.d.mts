/** Flags that keep headless Chromium quiet on a closed network and inside a root container. */
export declare const CHROMIUM_ARGS: string[];
/** The Chromium executable to use, or `undefined` when none is found. */
export declare function findChromium(): Promise<string | undefined>;
/** Like {@link findChromium} but throws with the fix when nothing is found. */
export declare function requireChromium(): Promise<string>;
