/**
 * Public design previews (service spec 1.7, `list_carousel_formats` `preview_url`):
 *   GET /media/previews/{design_id}.jpg   a sample slide of an active design (JPEG, 1080x1350)
 * Rendered on first request (src/providers/render/preview.ts) and kept in memory; unknown or retired designs
 * are 404. The picture holds no user data, so it is public and cacheable.
 */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { renderDesignPreview } from "../providers/render/preview.ts";

/** The preview routes for `ctx`. */
export function previewRoutes(ctx: AppContext): Router {
  const router = Router();
  const cache = new Map<string, Promise<Buffer>>();
  router.get("/media/previews/:file", async (req, res, next) => {
    try {
      const m = /^([a-z0-9][a-z0-9_-]{0,63})\.jpg$/.exec(String(req.params.file));
      const design = m
        ? await ctx.db("carousel_designs").where({ id: m[1], active: true }).first("id")
        : undefined;
      if (!m || !design) {
        res.status(404).type("text/plain").send("Not found");
        return;
      }
      let bytes = cache.get(design.id);
      if (!bytes) {
        bytes = renderDesignPreview(design.id);
        cache.set(design.id, bytes);
        bytes.catch(() => cache.delete(design.id));
      }
      const jpeg = await bytes;
      res.status(200).set({
        "Content-Type": "image/jpeg",
        "Content-Length": String(jpeg.length),
        "Cache-Control": "public, max-age=86400",
        "X-Content-Type-Options": "nosniff",
      });
      res.end(jpeg);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
