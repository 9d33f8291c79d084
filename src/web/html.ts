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

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
.muted{color:#666}.warn{background:#fff4d6;padding:.5rem;border-radius:4px}.error{color:#a40000}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}input,select{font:inherit;padding:.3rem}label{display:block;margin:.6rem 0}
.slides{display:flex;flex-wrap:wrap;gap:.5rem}.slides figure{margin:0;width:216px}.slides img{width:100%;height:auto;border:1px solid #ddd}.caption{white-space:pre-wrap;font:inherit;background:#f6f6f6;padding:.5rem}`;

/** The page shell: title, inline style (allowed by the CSP nonce-free `style-src 'unsafe-inline'`), body. */
export function page(title: string, body: RawHtml | string): string {
  const content = body instanceof RawHtml ? body.value : esc(body);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · Social MCP</title><style>${STYLE}</style></head><body>${content}</body></html>`;
}
