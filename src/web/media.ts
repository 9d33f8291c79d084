/**
 * Routes of the media library (service spec 1.7 "Media"): media enter through the browser, not
 * through tools.
 *   GET  /media             the user's media of the selected workspace + the upload form (session)
 *   POST /media             multipart upload (session + CSRF), then 303 back to the page
 *   GET  /media/:id/file    the stored file, to its owner only (404 otherwise), with byte ranges (206)
 *   POST /media/cta-artwork marks an owned image as a product's stored CTA artwork (session + CSRF)
 *   POST /media/alt-text    sets or clears an owned asset's alt text (session + CSRF, same origin)
 * The workspace is the `workspace_id` query/field when the user is a member of it, else the user's
 * first owned workspace. A workspace that is not active gets the suspended page (src/web/suspended.ts).
 */
import { isUuid } from "../ids.ts";
import { pipeline } from "node:stream/promises";
import express, { Router, type Request, type Response } from "express";
import type { AppContext } from "../context.ts";
import { workspacesOfUser } from "../domain/account/overview.ts";
import {
  checkMediaAltText,
  createMediaAsset,
  listMedia,
  mediaFileOfUser,
  setMediaAltText,
} from "../domain/media/media.ts";
import { assertStorageRoom, StorageQuotaError } from "../domain/media/storage-quota.ts";
import { createLimiter } from "../runtime/rate-limit.ts";
import { type Owner, ownedBy } from "../domain/owner.ts";
import { setCtaArtwork } from "../domain/products/products.ts";
import { ToolError } from "../errors.ts";
import type { MediaStorage } from "../providers/storage.ts";
import { renderMediaPage } from "./media-page.ts";
import { receiveUpload, UploadError } from "./media-upload.ts";
import { pageHeaders } from "./security.ts";
import { type BrowserSession, csrfOk, formExpired, requireSession } from "./session.ts";
import { refuseInactiveWorkspace } from "./suspended.ts";

/** The workspace asked for (if the user is a member) or the default one; undefined when the user has none. */
export async function pickWorkspace(ctx: AppContext, userId: string, asked: unknown) {
  const all = await workspacesOfUser(ctx.db, userId);
  const chosen = typeof asked === "string" && isUuid(asked) ? all.find((w) => w.id === asked) : undefined;
  return {
    all,
    current: chosen ?? (typeof asked === "string" && asked ? undefined : all[0]),
    asked: typeof asked === "string" && asked !== "",
  };
}

function parseLabels(raw: string | undefined): string[] {
  return [
    ...new Set(
      (raw ?? "")
        .split(",")
        .map((l) => l.trim().slice(0, 100))
        .filter(Boolean),
    ),
  ].slice(0, 50);
}

/** The workspace's live products with their current CTA artwork asset id (null when none). */
async function productsWithArtwork(
  ctx: AppContext,
  owner: Owner,
): Promise<Array<{ id: string; name: string; cta_asset_id: string | null }>> {
  const rows = await ctx
    .db("products as p")
    .leftJoin("product_assets as pa", function () {
      this.on("pa.product_id", "=", "p.id").andOnVal("pa.role", "=", "cta_artwork");
    })
    .where(ownedBy(owner, "p"))
    .whereNull("p.deleted_at")
    .orderBy("p.name")
    .limit(200)
    .select("p.id", "p.name", "pa.media_asset_id as cta_asset_id");
  return rows.map((r: any) => ({ id: r.id, name: r.name, cta_asset_id: r.cta_asset_id ?? null }));
}

/** Builds the media router. `storage` defaults to local disk under config `media.dir`. */
export function mediaRoutes(ctx: AppContext, storage: MediaStorage = ctx.providers.storage): Router {
  const router = Router();
  const session = requireSession(ctx);
  // Per-user upload rate (config RATE_LIMIT_UPLOADS per RATE_LIMIT_WINDOW_SECONDS), across workspaces.
  const uploads = createLimiter(ctx, "uploads", ctx.config.limits.uploads);
  // The shared page headers: `Referrer-Policy: same-origin` (with `no-referrer` Chromium posts the form
  // with `Origin: null`, which the CSRF check refuses), a strict CSP and `no-store`.
  const headers = pageHeaders(ctx);

  const show = async (
    req: Request,
    res: Response,
    status = 200,
    message?: { kind: "ok" | "error"; text: string },
  ) => {
    const s = res.locals.session as BrowserSession;
    const { all, current } = await pickWorkspace(
      ctx,
      s.userId,
      req.query.workspace_id ?? res.locals.workspaceId,
    );
    if (!current) {
      res.status(404).type("text/plain").send("Not found");
      return;
    }
    if (refuseInactiveWorkspace(res, current)) return;
    const owner = { userId: s.userId, workspaceId: current.id };
    const { items } = await listMedia(ctx.db, owner, { limit: 50 });
    const products = await productsWithArtwork(ctx, owner);
    res
      .status(status)
      .set("Cache-Control", "no-store")
      .type("html")
      .send(
        renderMediaPage({
          csrfToken: s.csrfToken,
          workspaceId: current.id,
          workspaces: all,
          items,
          products,
          maxImageBytes: ctx.config.media.maxImageBytes,
          maxVideoBytes: ctx.config.media.maxVideoBytes,
          message,
        }),
      );
  };

  router.get("/media", headers, session, async (req, res) => {
    const uploaded = typeof req.query.uploaded === "string" && isUuid(req.query.uploaded);
    const cta = req.query.cta === "1";
    const alt = req.query.alt;
    await show(
      req,
      res,
      200,
      uploaded
        ? { kind: "ok", text: "Uploaded." }
        : cta
          ? { kind: "ok", text: "Saved as the product's CTA artwork." }
          : alt === "saved" || alt === "cleared"
            ? { kind: "ok", text: alt === "saved" ? "Alt text saved." : "Alt text cleared." }
            : undefined,
    );
  });

  router.post("/media", headers, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    const allowed = await uploads.consume(s.userId);
    if (!allowed.ok) {
      // Refused before the body is read; the connection is closed rather than drained.
      res.set({ "Retry-After": String(allowed.retryAfter), Connection: "close" });
      await show(req, res, 429, {
        kind: "error",
        text: `Too many uploads: at most ${ctx.config.limits.uploads} per ${ctx.config.limits.windowSeconds} seconds. Try again in ${allowed.retryAfter} seconds.`,
      });
      return;
    }
    try {
      const result = await receiveUpload(ctx, req, storage, (fields) => {
        req.body = fields;
        return csrfOk(req, s);
      });
      const { current } = await pickWorkspace(ctx, s.userId, result.fields.workspace_id);
      if (!current || current.status !== "active") {
        await storage.remove(result.file.storageKey);
        if (current) refuseInactiveWorkspace(res, current);
        else res.status(404).type("text/plain").send("Not found");
        return;
      }
      const f = result.file;
      let altText: string | null;
      try {
        // A field busboy cut at its byte limit (4,096 bytes) has more than 1,000 characters: refused here too.
        altText = checkMediaAltText(result.fields.alt_text);
      } catch (err) {
        await storage.remove(f.storageKey);
        if (!(err instanceof ToolError)) throw err;
        await show(req, res, 400, { kind: "error", text: `Nothing was uploaded: ${err.message}.` });
        return;
      }
      const asset = await ctx.db
        .transaction(async (trx) => {
          await assertStorageRoom(trx, current.id, f.bytes, ctx.config.media.storageQuotaBytes);
          return createMediaAsset(
            trx,
            { userId: s.userId, workspaceId: current.id },
            {
              kind: f.kind,
              mimeType: f.mime,
              bytes: f.bytes,
              width: f.width,
              height: f.height,
              durationSeconds: f.durationSeconds,
              frameRate: f.frameRate,
              videoCodec: f.videoCodec,
              audioCodec: f.audioCodec,
              labels: parseLabels(result.fields.labels),
              title: result.fields.title?.trim().slice(0, 200) || null,
              originalName: f.originalName,
              storageKey: f.storageKey,
              sha256: f.sha256,
              source: "upload",
              altText,
            },
          );
        })
        .catch(async (err) => {
          await storage.remove(f.storageKey);
          throw err;
        });
      ctx.log.info({ asset_id: asset.asset_id, kind: asset.kind, bytes: asset.bytes }, "media uploaded");
      res.redirect(303, `/media?workspace_id=${current.id}&uploaded=${asset.asset_id}`);
    } catch (err) {
      if (err instanceof StorageQuotaError) {
        await show(req, res, 413, { kind: "error", text: err.message });
        return;
      }
      if (!(err instanceof UploadError)) throw err;
      if (err.status === 403) return formExpired(res);
      await show(req, res, err.status, { kind: "error", text: err.message });
    }
  });

  /**
   * The checks of a form posted on /media: its CSRF token (403), its `workspace_id` one of the user's (404),
   * that workspace not suspended. @returns the session, the form's fields and the workspace, or undefined when
   * the answer was sent.
   */
  const workspaceForm = async (req: Request, res: Response) => {
    const s = res.locals.session as BrowserSession;
    if (!csrfOk(req, s)) {
      res.status(403).type("text/plain").send("Forbidden: the form has expired");
      return undefined;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { current } = await pickWorkspace(ctx, s.userId, body.workspace_id);
    if (!current) {
      res.status(404).type("text/plain").send("Not found");
      return undefined;
    }
    if (refuseInactiveWorkspace(res, current)) return undefined;
    res.locals.workspaceId = current.id;
    return { s, body, current };
  };

  // Marks an uploaded image as a product's stored CTA artwork (service spec 1.7); CSRF-checked form post.
  router.post(
    "/media/cta-artwork",
    headers,
    session,
    express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }),
    async (req, res) => {
      const form = await workspaceForm(req, res);
      if (!form) return;
      const { s, body, current } = form;
      try {
        await ctx.db.transaction((trx) =>
          setCtaArtwork(
            trx,
            { userId: s.userId, workspaceId: current.id },
            String(body.product_id ?? ""),
            String(body.asset_id ?? ""),
          ),
        );
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        const text =
          err.code === "not_found"
            ? "That product does not exist in this workspace."
            : "Choose one of your images as the CTA artwork.";
        await show(req, res, 400, { kind: "error", text });
        return;
      }
      res.redirect(303, `/media?workspace_id=${current.id}&cta=1`);
    },
  );

  // Sets or clears an asset's alt text (docs/social.md "Alt text"); an empty field clears it. Too long or not
  // an asset of this workspace: the page again with the reason, nothing changed.
  router.post(
    "/media/alt-text",
    headers,
    session,
    express.urlencoded({ extended: false, limit: "32kb", parameterLimit: 10 }),
    async (req, res) => {
      const form = await workspaceForm(req, res);
      if (!form) return;
      const { s, body, current } = form;
      let saved: string | null;
      try {
        const asset = await setMediaAltText(
          ctx.db,
          { userId: s.userId, workspaceId: current.id },
          String(body.asset_id ?? ""),
          typeof body.alt_text === "string" ? body.alt_text : null,
        );
        saved = asset.alt_text;
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        const text =
          err.code === "not_found"
            ? "That media asset does not exist in this workspace."
            : `The alt text was not changed: ${err.message}.`;
        await show(req, res, 400, { kind: "error", text });
        return;
      }
      res.redirect(303, `/media?workspace_id=${current.id}&alt=${saved === null ? "cleared" : "saved"}`);
    },
  );

  router.get("/media/:id/file", headers, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    const file = await mediaFileOfUser(ctx.db, s.userId, String(req.params.id));
    if (!file) {
      res.status(404).type("text/plain").send("Not found");
      return;
    }
    const headers = {
      "Content-Type": file.mimeType,
      "Accept-Ranges": "bytes",
      "Content-Disposition": "inline",
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    };
    // Byte ranges (RFC 9110 section 14): browsers' <video> players ask for them. One range is served
    // (several are combined, as range-parser does for Express's req.range); an unsatisfiable one is 416.
    // Only the range is read from the storage.
    const ranges = req.headers.range ? req.range(file.bytes, { combine: true }) : undefined;
    if (ranges === -1) {
      res
        .status(416)
        .set({ ...headers, "Content-Range": `bytes */${file.bytes}` })
        .end();
      return;
    }
    const range =
      Array.isArray(ranges) && ranges.type === "bytes" && ranges.length === 1 ? ranges[0] : undefined;
    const stored =
      req.method === "HEAD" ? undefined : await storage.read(file.storageKey, range).catch(() => undefined);
    if (req.method !== "HEAD" && !stored) {
      res.status(404).type("text/plain").send("Not found");
      return;
    }
    if (range)
      res.status(206).set({
        ...headers,
        "Content-Range": `bytes ${range.start}-${range.end}/${file.bytes}`,
        "Content-Length": String(range.end - range.start + 1),
      });
    else res.status(200).set({ ...headers, "Content-Length": String(file.bytes) });
    if (!stored) {
      res.end();
      return;
    }
    await pipeline(stored.stream, res).catch(() => res.destroy());
  });

  return router;
}
