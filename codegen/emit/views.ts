/**
 * Emits generated/views/<name>.html: each MCP Apps view (src/mcp/views/catalog.ts) bundled into one
 * self-contained HTML document (MCP Apps spec 2026-01-26 "UI Resource Format": a valid HTML5 document; the
 * host's default CSP allows inline script and style and nothing remote). The view's script
 * (`src/mcp/views/<name>/main.ts` and what it imports) is bundled and minified by esbuild into one inline
 * module script; the stylesheet (`src/mcp/views/common/style.css`, then the view's own `style.css` if any)
 * is minified into one inline `<style>`. No remote script, style, font or image. Deterministic: the same
 * sources and esbuild version give the same bytes (`--check` compares them).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { build, transform } from "esbuild";
import { VIEWS, type ViewSpec } from "../../src/mcp/views/catalog.ts";
import type { CodegenContext } from "../context.ts";
import { REPO_ROOT } from "../format.ts";

const VIEWS_SRC = path.join(REPO_ROOT, "src/mcp/views");

/** Browsers the views are built for (hosts embed current Chromium, WebKit and Gecko). */
const TARGET = ["chrome111", "safari16.4", "firefox115"];

async function script(view: ViewSpec): Promise<string> {
  const out = await build({
    entryPoints: [path.join(VIEWS_SRC, view.name, "main.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: TARGET,
    write: false,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  // Inline in <script>: a "</script" inside a string literal would end the element early.
  return out.outputFiles[0]!.text.trim().replace(/<\/(script)/gi, "<\\/$1");
}

async function style(view: ViewSpec): Promise<string> {
  const files = [path.join(VIEWS_SRC, "common/style.css"), path.join(VIEWS_SRC, view.name, "style.css")];
  const css = (await Promise.all(files.filter((f) => existsSync(f)).map((f) => readFile(f, "utf8")))).join(
    "\n",
  );
  const out = await transform(css, { loader: "css", minify: true, target: TARGET, charset: "utf8" });
  return out.code.trim().replace(/<\/(style)/gi, "<\\/$1");
}

/** The HTML document of one view. */
export async function viewDocument(view: ViewSpec, provenance: string): Promise<string> {
  const [js, css] = await Promise.all([script(view), style(view)]);
  return [
    "<!doctype html>",
    `<!-- ${provenance} Source: src/mcp/views/${view.name}/ -->`,
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${view.title} · Social MCP</title>`,
    `<style>${css}</style>`,
    "</head>",
    "<body>",
    '<main id="app" aria-live="polite"><p class="muted">Loading…</p></main>',
    `<script type="module">${js}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** Every view's document, as generated files. */
export async function emitViews(ctx: CodegenContext): Promise<Array<{ path: string; content: string }>> {
  return Promise.all(
    VIEWS.map(async (view) => ({
      path: `views/${view.name}.html`,
      content: await viewDocument(view, ctx.provenance),
    })),
  );
}
