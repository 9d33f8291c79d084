/**
 * Signed public media URLs (service spec 1.8; src/domain/media/public-url.ts): `GET|HEAD
 * /media/public/{asset}?exp=&sig=` serves the asset's bytes to a network that pulls media (Instagram,
 * TikTok PULL_FROM_URL) or to the sandbox post page, without a session. The right `Content-Type`,
 * `Accept-Ranges: bytes` and single byte ranges (RFC 9110 section 14: 206 with `Content-Range`, 416 when
 * unsatisfiable), reading only the range from storage. Unsigned, tampered or expired URLs, deleted or
 * unknown assets are all 404, alike.
 */
import { pipeline } from "node:stream/promises";
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { verifyMediaSignature } from "../domain/media/public-url.ts";
import { isUuid } from "../ids.ts";
import { rateLimit } from "../runtime/rate-limit.ts";

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

/**
 * The router of /media/public, under a per-IP limit (RATE_LIMIT_MEDIA_PUBLIC per window). The object's
 * size comes from its record, so a range is parsed first and only that range is read from the storage
 * (`MediaStorage.read(key, range)`: a file read from the offset on disk, an S3 `Range` GET), never the
 * whole object; a HEAD reads nothing.
 */
export function mediaPublicRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    "/media/public/:asset",
    rateLimit(ctx, "media:public", ctx.config.limits.mediaPublic),
    async (req, res, next) => {
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
          .first("storage_key", "mime_type", "bytes");
        if (!asset) return notFound();
        const size = Number(asset.bytes);
        const range = parseRange(req.headers.range, size);
        const headers = {
          "Content-Type": asset.mime_type,
          "Accept-Ranges": "bytes",
          "Cache-Control": "private, max-age=300",
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cross-Origin-Resource-Policy": "cross-origin",
        };
        if (range === null)
          return res
            .status(416)
            .set({ ...headers, "Content-Range": `bytes */${size}` })
            .end();
        const partial = range
          ? {
              status: 206,
              "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
              length: range.end - range.start + 1,
            }
          : { status: 200, length: size };
        const stored =
          req.method === "HEAD"
            ? undefined
            : await ctx.providers.storage.read(asset.storage_key, range).catch(() => undefined);
        if (req.method !== "HEAD" && !stored) return notFound();
        res.status(partial.status).set({
          ...headers,
          ...("Content-Range" in partial ? { "Content-Range": partial["Content-Range"] } : {}),
          "Content-Length": String(partial.length),
        });
        if (!stored) return res.end();
        return pipeline(stored.stream, res).catch(() => res.destroy());
      } catch (err) {
        next(err);
        return undefined;
      }
    },
  );
  return router;
}
