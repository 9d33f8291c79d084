/**
 * The service's icon (MCP Implementation `icons`, src/mcp/server-info.ts): `GET /assets/icon.svg` (the drawing,
 * ./assets/icon.svg) and `GET /assets/icon.png` (the same drawing rendered once by resvg at ICON_PNG_SIZE
 * pixels). Hosts and directories load them from other origins, so they are served with
 * `Cross-Origin-Resource-Policy: cross-origin`; the SVG gets a CSP that lets it run nothing.
 */
import { readFileSync } from "node:fs";
import { Resvg } from "@resvg/resvg-js";
import { Router } from "express";
import { etagMatches, etagOf } from "./etag.ts";
import { ICON_PNG_PATH, ICON_PNG_SIZE, ICON_SVG_PATH } from "./icon-paths.ts";

interface Icon {
  body: Buffer;
  etag: string;
  type: string;
}

const svg = readFileSync(new URL("./assets/icon.svg", import.meta.url));
let png: Icon | undefined;

/** The icon at `path`, the PNG rendered on first use. */
function icon(path: string): Icon | undefined {
  if (path === ICON_SVG_PATH) return { body: svg, etag: etagOf(svg), type: "image/svg+xml" };
  if (path !== ICON_PNG_PATH) return undefined;
  if (!png) {
    const body = Buffer.from(
      new Resvg(svg, { fitTo: { mode: "width", value: ICON_PNG_SIZE } }).render().asPng(),
    );
    png = { body, etag: etagOf(body), type: "image/png" };
  }
  return png;
}

/** The router of the icon's two routes (HEAD too; strong ETags; cached a day). */
export function iconRoutes(): Router {
  const router = Router();
  router.get([ICON_SVG_PATH, ICON_PNG_PATH], (req, res) => {
    const found = icon(req.path)!;
    res.set({
      "Content-Type": found.type,
      ETag: found.etag,
      "Cache-Control": "public, max-age=86400",
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
    if (etagMatches(req.get("if-none-match"), found.etag)) {
      res.status(304).end();
      return;
    }
    res.setHeader("Content-Length", String(found.body.length));
    res.status(200).end(req.method === "HEAD" ? undefined : found.body);
  });
  return router;
}
