/**
 * The markdown renderer (./markdown.ts and streaming-markdown) is loaded with the first reply, not
 * with the page. Until it is there a reply shows as plain text; once it loads, {@link onMarkdownReady}
 * listeners redraw the replies as markdown.
 */
import type { MarkdownStream } from "./markdown.js";

let Stream: typeof MarkdownStream | undefined;
let loading: Promise<void> | undefined;
const listeners: (() => void)[] = [];

/** Starts loading the renderer (once); resolves when it is ready. */
export function loadMarkdown(): Promise<void> {
  loading ??= import("./markdown.js").then((m) => {
    Stream = m.MarkdownStream;
    for (const l of listeners) l();
  });
  return loading;
}

/** Calls `listener` when the renderer has loaded. */
export function onMarkdownReady(listener: () => void): void {
  listeners.push(listener);
}

/** Whether replies can be rendered as markdown yet. */
export function markdownReady(): boolean {
  return Stream !== undefined;
}

const streams = new WeakMap<HTMLElement, MarkdownStream>();

/**
 * Shows a reply's text in `content`: as markdown once the renderer is loaded, as plain text before.
 * @param done - The text is complete.
 */
export function showReply(content: HTMLElement, text: string, done: boolean): void {
  if (!Stream) {
    void loadMarkdown();
    if (content.textContent !== text) content.textContent = text;
    return;
  }
  let stream = streams.get(content);
  if (!stream) {
    content.replaceChildren();
    streams.set(content, (stream = new Stream(content)));
  }
  stream.show(text, done);
}
