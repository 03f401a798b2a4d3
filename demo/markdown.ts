/**
 * Markdown of the assistant's replies (lists, emphasis, code blocks, links) through
 * streaming-markdown: it builds DOM nodes and text nodes as the text streams in, so raw HTML in a
 * reply is only ever text, and a streamed frame appends to the reply instead of redrawing it.
 * Links keep only web and mail addresses; images are shown as their text (a reply cannot make the
 * page fetch anything).
 */
import * as smd from "streaming-markdown";

/** Link targets a reply may use. */
const SAFE_HREF = /^(?:https?:|mailto:|#)/i;

function renderer(root: HTMLElement): smd.Default_Renderer {
  const base = smd.default_renderer(root);
  return {
    ...base,
    add_token(data, type) {
      // An image becomes a span: its alt text is shown, nothing is loaded.
      if (type === smd.IMAGE) {
        data.nodes[++data.index] = data.nodes[data.index - 1]!.appendChild(document.createElement("span"));
        return;
      }
      smd.default_add_token(data, type);
      // A code block scrolls inside its own box: it takes focus, so a keyboard can scroll it too.
      if (type === smd.CODE_BLOCK || type === smd.CODE_FENCE)
        data.nodes[data.index]!.parentElement?.setAttribute("tabindex", "0");
    },
    set_attr(data, type, value) {
      if (type === smd.SRC) return;
      if (type === smd.HREF) {
        if (!SAFE_HREF.test(value.trim())) return;
        const a = data.nodes[data.index]!;
        a.setAttribute("target", "_blank");
        a.setAttribute("rel", "noopener noreferrer");
      }
      smd.default_set_attr(data, type, value);
    },
  };
}

/** A reply's markdown, rendered into an element as its text grows. */
export class MarkdownStream {
  readonly #root: HTMLElement;
  #parser: smd.Parser;
  #written = "";
  #ended = false;

  constructor(root: HTMLElement) {
    this.#root = root;
    this.#parser = smd.parser(renderer(root));
  }

  /**
   * Shows `text`: appends what is new when it extends what was written, else starts over.
   * @param done - The text is complete: flush what the parser held back.
   */
  show(text: string, done: boolean): void {
    if (this.#ended && text === this.#written) return;
    if (this.#ended || !text.startsWith(this.#written)) this.#restart();
    if (text.length > this.#written.length) smd.parser_write(this.#parser, text.slice(this.#written.length));
    this.#written = text;
    if (done) {
      smd.parser_end(this.#parser);
      this.#ended = true;
    }
  }

  #restart(): void {
    this.#root.replaceChildren();
    this.#parser = smd.parser(renderer(this.#root));
    this.#written = "";
    this.#ended = false;
  }
}
