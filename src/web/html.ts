/**
 * HTML helpers for the browser pages: escaping and the shared page shell. Every value interpolated into a
 * page goes through `esc` (captions and other retrieved text are inert text, service spec 5.14).
 */

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
  constructor(readonly value: string) {}
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

const STYLE = `*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;overflow-wrap:anywhere}
h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
.muted{color:#666}.warn{background:#fff4d6;padding:.5rem;border-radius:4px}.error{color:#a40000}pre{white-space:pre-wrap}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}input,select{font:inherit;padding:.3rem;max-width:100%}label{display:block;margin:.6rem 0}
nav.sections{display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:1rem 0}section{margin:1.5rem 0}
@media (max-width:40rem){body{margin:1rem auto}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{display:none}table.stack tr{border-bottom:1px solid #ddd;padding:.4rem 0}table.stack td{border:0;padding:.1rem 0}
table.stack td[data-label]:not([data-label=""])::before{content:attr(data-label) ": ";font-weight:600}}

.slides{display:flex;flex-wrap:wrap;gap:.5rem}.slides figure{margin:0;width:216px}.slides img{width:100%;height:auto;border:1px solid #ddd}.caption{white-space:pre-wrap;font:inherit;background:#f6f6f6;padding:.5rem}`;

/**
 * The HTML document of every browser page: `<title>{title} · Social MCP</title>`, the viewport for phones,
 * one inline `<style>` (`style`, default the shared page style) and an optional inline `<script>`. Pages with
 * a CSP that names inline blocks by hash (the developer reference) hash exactly these `style`/`script` strings.
 */
export function documentShell(options: {
  title: string;
  body: RawHtml;
  style?: string;
  script?: string;
}): string {
  const script = options.script === undefined ? "" : raw(`<script>${options.script}</script>`);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${options.title} · Social MCP</title><style>${raw(options.style ?? STYLE)}</style></head><body>${options.body}${script}</body></html>`
    .value;
}

/** The page shell: title, the shared inline style (allowed by the CSP's `style-src 'unsafe-inline'`), body. */
export function page(title: string, body: RawHtml | string): string {
  return documentShell({ title, body: body instanceof RawHtml ? body : html`${body}` });
}
