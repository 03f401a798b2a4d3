import { readFileSync } from "node:fs";
import { posix } from "node:path";
import { defineConfig } from "vitepress";

// Where the site links a repository file (src/, examples/, test/): set DOCS_SOURCE_URL to the repository's
// file view (e.g. https://github.com/<owner>/kaboo-workflows/blob/main/); without it the links stay relative,
// which is right when the Markdown is read in the repository itself.
const sourceUrl = process.env["DOCS_SOURCE_URL"];

// One reference page per package entry, in the order of package.json `exports`; scripts/docs.mjs generates them.
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, string | { import: string }>;
};
const reference = Object.entries(pkg.exports).flatMap(([name, target]) => {
  if (typeof target === "string") return [];
  const page = target.import.replace(/^\.\/dist\//, "").replace(/(\/index)?\.js$/, "");
  return [{ text: `kaboo-workflows${name.slice(1)}`, link: `/reference/${page === "index" ? "index/" : page}` }];
});

export default defineConfig({
  title: "kaboo-workflows",
  description: "Lifecycle hooks for agents in the browser and at the edge: approvals, grants, exactly-once tool calls.",
  // docs/api is TypeDoc's own project (package.json, node_modules), not pages.
  srcExclude: ["api/**"],
  cleanUrls: true,
  lastUpdated: false,
  // Links out of docs/ (to src/, examples/, test/) are checked by scripts/check-docs.mjs against the repository.
  ignoreDeadLinks: [(url) => url.startsWith("../") || url.includes("/../")],
  markdown: {
    config(md) {
      // A checked block may start with declarations the reader does not need, ended by `// ---cut---`
      // (as twoslash does); `no-check` marks a block scripts/check-docs.mjs leaves alone. Neither is shown.
      const linkOpen =
        md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
      md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
        const href = tokens[idx]!.attrGet("href");
        if (sourceUrl && href?.startsWith("../")) {
          const path = posix.normalize(posix.join("docs", posix.dirname(env.relativePath as string), href));
          if (!path.startsWith("docs/") && !path.startsWith("../")) tokens[idx]!.attrSet("href", `${sourceUrl}${path}`);
        }
        return linkOpen(tokens, idx, options, env, self);
      };
      const fence = md.renderer.rules.fence!;
      md.renderer.rules.fence = (tokens, idx, options, env, self) => {
        const token = tokens[idx]!;
        const cut = token.content.indexOf("// ---cut---\n");
        if (cut >= 0) token.content = token.content.slice(cut + "// ---cut---\n".length);
        token.info = token.info.replace(/\s+no-check\b/, "");
        return fence(tokens, idx, options, env, self);
      };
    },
  },
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Guides", link: "/guide/quick-start" },
      { text: "Concepts", link: "/concepts/" },
      { text: "API", link: "/reference/" },
    ],
    sidebar: [
      {
        text: "Start",
        items: [
          { text: "Quick start", link: "/guide/quick-start" },
          { text: "Concepts", link: "/concepts/" },
          { text: "Exactly once: the ledger", link: "/concepts/ledger" },
        ],
      },
      {
        text: "Guides",
        items: [
          { text: "Approvals in the page", link: "/guide/approvals-in-the-page" },
          { text: "Grants and scopes", link: "/guide/grants-and-scopes" },
          { text: "Deploy on Cloudflare Workers", link: "/guide/cloudflare-workers" },
          { text: "Deploy on Deno", link: "/guide/deno" },
          { text: "On Node with PostgreSQL", link: "/guide/node-postgres" },
          { text: "With the AI SDK", link: "/guide/ai-sdk" },
          { text: "With Strands", link: "/guide/strands" },
          { text: "Governed approvals", link: "/guide/governed-approvals" },
          { text: "Runs that outlive their connection", link: "/guide/runs-outlive-connection" },
          { text: "Tracing", link: "/guide/tracing" },
          { text: "MCP tools", link: "/guide/mcp" },
          { text: "Multi-agent", link: "/guide/multi-agent" },
          { text: "Bounds and the security model", link: "/guide/security" },
          { text: "Runtimes", link: "/guide/runtimes" },
          { text: "Upgrading", link: "/guide/upgrading" },
        ],
      },
      { text: "API reference", link: "/reference/", items: reference },
      {
        text: "More",
        items: [
          { text: "Entries", link: "/entries" },
          { text: "Benchmarks", link: "/benchmarks" },
        ],
      },
    ],
  },
});
