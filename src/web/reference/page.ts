/**
 * The HTML of GET /developers/mcp: the guide (generated/guide.md rendered with marked; raw HTML in the
 * Markdown is escaped, never passed through) and a tool reference built from the catalog, searchable in the
 * page by name, group, scope and text (client.ts). Static for a given catalog and guide.
 */
import { createHash } from "node:crypto";
import { Marked, type Tokens } from "marked";
import { documentShell, esc, html, type RawHtml, raw } from "../html.ts";
import { SEARCH_SCRIPT } from "./client.ts";

/** The parts of generated/catalog.json the page and the bundle read. */
export interface CatalogDoc {
  _generated: string;
  protocol_revisions: string[];
  tools: Array<{
    name: string;
    title: string;
    group: string;
    description: string;
    scope: string;
    access: string;
    browser_approval: boolean;
    queued_handler: boolean;
    budget: string;
    credits: string;
    plan: string | null;
    input_schema: Record<string, unknown>;
    output_schema: Record<string, unknown>;
  }>;
}

/** CSP source for an inline block: `'sha256-<base64>'`. */
export function cspHash(content: string): string {
  return `'sha256-${createHash("sha256").update(content, "utf8").digest("base64")}'`;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^-+|-+$/g, "");

/** Renders the guide; tool headings get the id `tool-<name>`, others a slug of their text. */
export function renderGuide(markdown: string): string {
  const marked = new Marked({
    gfm: true,
    renderer: {
      html({ text }: Tokens.HTML | Tokens.Tag): string {
        return text.trimStart().startsWith("<!--") ? "" : esc(text);
      },
      heading({ tokens, depth }: Tokens.Heading): string {
        const inner = this.parser.parseInline(tokens);
        const first = tokens[0];
        const id =
          depth === 3 && first?.type === "codespan" ? `tool-${(first as Tokens.Codespan).text}` : slug(inner);
        return `<h${depth} id="${esc(id)}">${inner}</h${depth}>\n`;
      },
    },
  });
  // A wide table (the network rules have nine columns) scrolls inside its own region on a phone instead of
  // widening the page; the region takes focus so that a keyboard can scroll it (axe scrollable-region-focusable).
  return marked
    .parse(markdown, { async: false })
    .replaceAll("<table>", '<div class="table-scroll" tabindex="0" role="region" aria-label="Table"><table>')
    .replaceAll("</table>", "</table></div>");
}

function toolItem(tool: CatalogDoc["tools"][number]): RawHtml {
  const search = [tool.name, tool.title, tool.group, tool.scope, tool.description].join(" ").toLowerCase();
  const flags = [
    tool.access,
    tool.browser_approval ? "browser approval" : "",
    tool.queued_handler ? "queued" : "",
    `budget ${tool.budget}`,
    tool.plan ? `plan ${tool.plan}` : "",
  ].filter(Boolean);
  return html`<li data-name="${tool.name}" data-group="${tool.group}" data-scope="${tool.scope}" data-search="${search}">
<a href="#tool-${tool.name}"><code>${tool.name}</code></a> ${tool.title}
<div class="meta"><span class="tag">${tool.group}</span><span class="tag">${tool.scope}</span>${flags.join(" · ")}</div>
<details><summary>Description and arguments</summary><p>${tool.description}</p><pre>${JSON.stringify(tool.input_schema, null, 2)}</pre></details>
</li>
`;
}

/**
 * The page, a template on the shared document shell (src/web/html.ts) like the other pages; every catalog
 * value is escaped by `html`, the guide is rendered by `renderGuide`.
 * @returns the page and the CSP hash of its inline script (its style is the shared stylesheets').
 */
export function renderReferencePage(
  catalog: CatalogDoc,
  guideMarkdown: string,
): { html: string; scriptHash: string } {
  const body = html`<div class="reference">
<header class="reference-head"><h1>Developer reference</h1>
<p>Files: <a href="/developers/mcp/catalog.json">catalog.json</a> · <a href="/developers/mcp/guide.md">guide.md</a> · <a href="/developers/mcp/download.zip">download.zip</a></p></header>
<section id="reference" aria-label="Tool reference">
<h2>Tools</h2>
<label for="tool-search">Search by name, group, scope or text (<code>group:media</code>, <code>scope:read:content</code>)</label>
<input id="tool-search" type="search" autocomplete="off" placeholder="e.g. carousel">
<p id="tool-count" aria-live="polite">${catalog.tools.length} tools</p>
<ul id="tool-list">
${catalog.tools.map(toolItem)}</ul>
</section>
<article id="guide">
${raw(renderGuide(guideMarkdown))}
</article>
</div>
`;
  return {
    html: documentShell({
      title: "Developer reference",
      body,
      script: SEARCH_SCRIPT,
      current: "/developers/mcp",
    }),
    scriptHash: cspHash(SEARCH_SCRIPT),
  };
}
