/**
 * HTML helpers for the browser pages: escaping, the shared page shell and the stacking table. Every value interpolated into a
 * page goes through `esc` (captions and other retrieved text are inert text, service spec 5.14).
 */
import { assetHref, STYLESHEET_NAMES } from "./assets.ts";

/** Escapes text for HTML element content and double-quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A tagged template that escapes every interpolated value except `raw(...)` fragments. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += renderValue(v) + (strings[i + 1] ?? "");
  });
  return new RawHtml(out);
}

export class RawHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

/** Marks trusted markup (already escaped or built by `html`). */
export function raw(markup: string): RawHtml {
  return new RawHtml(markup);
}

function renderValue(v: unknown): string {
  if (v instanceof RawHtml) return v.value;
  if (Array.isArray(v)) return v.map(renderValue).join("");
  if (v === undefined || v === null || v === false) return "";
  return esc(v);
}

/** The links of the site header, in order: path and label. Every page shows them. */
export const SITE_LINKS = [
  ["/posts", "Posts"],
  ["/media", "Media"],
  ["/review", "TikTok review"],
  ["/settings/social", "Social accounts"],
  ["/settings/integrations/mcp", "Connections"],
  ["/settings", "Settings"],
  ["/developers/mcp", "Developers"],
] as const;

/** A path of `SITE_LINKS` (the page's own section, marked `aria-current="page"` in the header). */
export type SitePath = (typeof SITE_LINKS)[number][0];

function siteHeader(current: SitePath | undefined): RawHtml {
  const links = SITE_LINKS.map(
    ([href, label]) =>
      html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ""}>${label}</a></li>`,
  );
  // Wide screens show the links in a row; phones show them in a "Menu" disclosure (no script needed).
  return html`<header class="site"><nav class="container" aria-label="Site"><a class="brand" href="/">Social MCP</a><ul class="site-links">${links}</ul><details class="dropdown site-menu"><summary>Menu</summary><ul>${links}</ul></details></nav></header>`;
}

/**
 * The HTML document of every browser page: `<title>{title} · Social MCP</title>`, the viewport for phones,
 * the two stylesheets of this origin (Pico CSS and ours, src/web/assets.ts; light and dark follow the system
 * setting), a "skip to content" link, the site header with its links (`current` marked), the page body in
 * `<main id="main">` and an optional inline `<script>`. `style` adds an inline `<style>` block after the
 * stylesheets; a page that uses `style` or `script` must allow the block in its CSP by hash (`cspHash` in
 * src/web/reference/page.ts), since the shared CSP allows only `style-src 'self'` (src/web/security.ts).
 * The body must not hold its own `<main>`.
 */
export function documentShell(options: {
  title: string;
  body: RawHtml;
  style?: string;
  script?: string;
  current?: SitePath | undefined;
}): string {
  const style = options.style === undefined ? "" : raw(`<style>${options.style}</style>`);
  const script = options.script === undefined ? "" : raw(`<script>${options.script}</script>`);
  const links = STYLESHEET_NAMES.map((name) => html`<link rel="stylesheet" href="${assetHref(name)}">`);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,">${links}${style}<title>${options.title} · Social MCP</title></head><body><a class="skip-link" href="#main">Skip to content</a>${siteHeader(options.current)}<main id="main" class="container">${options.body}</main>${script}</body></html>`
    .value;
}

/**
 * The page shell of every browser page (`documentShell` with the shared stylesheets only): title, body and
 * optionally the header link of the page's own section.
 */
export function page(title: string, body: RawHtml | string, options: { current?: SitePath } = {}): string {
  return documentShell({
    title,
    body: body instanceof RawHtml ? body : html`${body}`,
    current: options.current,
  });
}

/**
 * The page of one thing that went wrong: `title` as the heading, `message` as an alert, a link `back`.
 * Every value is escaped.
 */
export function problemPage(
  title: string,
  message: string,
  back: { href: string; label: string },
  current?: SitePath,
): string {
  return page(
    title,
    html`<div class="centered"><h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="${back.href}">${back.label}</a></p></div>`,
    current ? { current } : {},
  );
}

/** A table row of `stackTable`: its cells, and optional `data-*` or `id` attributes of the `<tr>`. */
export type StackRow = RawHtml[] | { cells: RawHtml[]; attrs: Record<string, string> };

const ATTRIBUTE_NAME = /^(id|data-[a-z][a-z0-9-]*)$/;

/**
 * A table that reads as a table on wide screens and as stacked "label: value" rows on phones (class
 * `stack`; each cell carries its column's `data-label`, src/web/assets/app.css). An empty header names an
 * actions column: it is labelled "Actions" for screen readers and shows no label when stacked.
 * @throws Error for an attribute name other than `id` or `data-*`.
 */
export function stackTable(
  headers: readonly string[],
  rows: readonly StackRow[],
  options: { id?: string; className?: string } = {},
): RawHtml {
  const head = headers.map((h) =>
    h === ""
      ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>`
      : html`<th scope="col">${h}</th>`,
  );
  const body = rows.map((row) => {
    const { cells, attrs } = Array.isArray(row)
      ? { cells: row, attrs: {} }
      : (row as Exclude<StackRow, RawHtml[]>);
    const attributes = Object.entries(attrs).map(([name, value]) => {
      if (!ATTRIBUTE_NAME.test(name)) throw new Error(`stackTable: attribute ${name} is not id or data-*`);
      return raw(` ${name}="${esc(value)}"`);
    });
    return html`<tr${attributes}>${cells.map((c, i) => html`<td data-label="${headers[i] ?? ""}">${c}</td>`)}</tr>`;
  });
  return html`<table class="stack${options.className ? ` ${options.className}` : ""}"${options.id ? html` id="${options.id}"` : ""}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}
