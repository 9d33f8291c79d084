/**
 * Signed public media URLs (service spec 1.8; src/domain/media/public-url.ts): `GET|HEAD
 * /media/public/{asset}?exp=&sig=` serves the asset's bytes to a network that pulls media (Instagram,
 * TikTok PULL_FROM_URL) or to the sandbox post page, without a session. The right `Content-Type`,
 * `Accept-Ranges: bytes` and single byte ranges (RFC 9110 section 14: 206 with `Content-Range`, 416 when
 * unsatisfiable). Unsigned, tampered or expired URLs, deleted or unknown assets are all 404, alike.
 */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { sliceStream } from "../domain/media/byte-range.ts";
import { verifyMediaSignature } from "../domain/media/public-url.ts";
import { isUuid } from "../ids.ts";

/** Parses a single `bytes=` range against `size`; undefined = whole file, null = unsatisfiable. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | undefined | null {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // not a single byte range: ignore (send 200)
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return null;
  return { start, end };
}

/** The router of /media/public. */
export function mediaPublicRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get("/media/public/:asset", async (req, res, next) => {
    try {
      const id = String(req.params.asset);
      const notFound = () =>
        res.status(404).type("text/plain").set("Cache-Control", "no-store").send("Not found");
      if (
        !isUuid(id) ||
        !verifyMediaSignature(ctx.keys.encryptionKeys, id, req.query.exp, req.query.sig, ctx.clock.now())
      )
        return notFound();
      const asset = await ctx
        .db("media_assets")
        .where({ id })
        .whereNull("deleted_at")
        .first("storage_key", "mime_type");
      const stored = asset
        ? await ctx.providers.storage.read(asset.storage_key).catch(() => undefined)
        : undefined;
      if (!asset || !stored) return notFound();
      const size = stored.bytes;
      const range = parseRange(req.headers.range, size);
      res.set({
        "Content-Type": asset.mime_type,
        "Accept-Ranges": "bytes",
        "Cache-Control": "private, max-age=300",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cross-Origin-Resource-Policy": "cross-origin",
      });
      if (range === null) {
        stored.stream.destroy();
        return res.status(416).set("Content-Range", `bytes */${size}`).end();
      }
      if (range === undefined) {
        res.status(200).set("Content-Length", String(size));
        if (req.method === "HEAD") {
          stored.stream.destroy();
          return res.end();
        }
        return stored.stream.pipe(res);
      }
      res.status(206).set({
        "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
        "Content-Length": String(range.end - range.start + 1),
      });
      if (req.method === "HEAD") {
        stored.stream.destroy();
        return res.end();
      }
      return sliceStream(stored.stream, range.start, range.end).pipe(res);
    } catch (err) {
      next(err);
      return undefined;
    }
  });
  return router;
}
