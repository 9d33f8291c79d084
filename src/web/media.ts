/**
 * Routes of the media library (issue 6, service spec 1.7 "Media"): media enter through the browser, not
 * through tools.
 *   GET  /media             the user's media of the selected workspace + the upload form (session)
 *   POST /media             multipart upload (session + CSRF), then 303 back to the page
 *   GET  /media/:id/file    the stored file, to its owner only (404 otherwise), with byte ranges (206)
 * The workspace is the `workspace_id` query/field when the user is a member of it, else the user's
 * first owned workspace.
 */
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Router, type Request, type Response } from "express";
import helmet from "helmet";
import type { AppContext } from "../context.ts";
import { createMediaAsset, listMedia, mediaFileOfUser } from "../domain/media/media.ts";
import { isUuid } from "../domain/owner.ts";
import type { MediaStorage } from "../providers/storage.ts";
import { renderMediaPage } from "./media-page.ts";
import { receiveUpload, UploadError } from "./media-upload.ts";
import { type BrowserSession, csrfOk, requireSession } from "./session.ts";

/**
 * Passes through bytes `start`..`end` (inclusive) of a stream and drops the rest: works over any media
 * storage's plain read stream.
 */
function byteSlice(start: number, end: number): Transform {
  let at = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(start - at, 0);
      const to = Math.min(end + 1 - at, chunk.length);
      at += chunk.length;
      done(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
}

/** The workspaces the user belongs to, owned ones first. */
async function workspacesOf(ctx: AppContext, userId: string): Promise<Array<{ id: string; name: string }>> {
  return ctx
    .db("memberships as m")
    .join("workspaces as w", "w.id", "m.workspace_id")
    .where("m.user_id", userId)
    .orderByRaw("case when w.owner_user_id = ? then 0 else 1 end, w.created_at, w.id", [userId])
    .select("w.id", "w.name");
}

/** The workspace asked for (if the user is a member) or the default one; undefined when the user has none. */
async function pickWorkspace(ctx: AppContext, userId: string, asked: unknown) {
  const all = await workspacesOf(ctx, userId);
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

/** Builds the media router. `storage` defaults to local disk under config `media.dir`. */
export function mediaRoutes(ctx: AppContext, storage: MediaStorage = ctx.providers.storage): Router {
  const router = Router();
  const session = requireSession(ctx);
  const headers = helmet({
    contentSecurityPolicy: {
      directives: {
        "default-src": ["'self'"],
        "style-src": ["'unsafe-inline'"],
        "img-src": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
      },
    },
    referrerPolicy: { policy: "no-referrer" },
  });

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
    const { items } = await listMedia(ctx.db, { userId: s.userId, workspaceId: current.id }, { limit: 50 });
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
          maxImageBytes: ctx.config.media.maxImageBytes,
          maxVideoBytes: ctx.config.media.maxVideoBytes,
          message,
        }),
      );
  };

  router.get("/media", headers, session, async (req, res) => {
    const uploaded = typeof req.query.uploaded === "string" && isUuid(req.query.uploaded);
    await show(req, res, 200, uploaded ? { kind: "ok", text: "Uploaded." } : undefined);
  });

  router.post("/media", headers, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    try {
      const result = await receiveUpload(ctx, req, storage, (fields) => {
        req.body = fields;
        return csrfOk(req, s);
      });
      const { current } = await pickWorkspace(ctx, s.userId, result.fields.workspace_id);
      if (!current) {
        await storage.remove(result.file.storageKey);
        res.status(404).type("text/plain").send("Not found");
        return;
      }
      const f = result.file;
      const asset = await createMediaAsset(
        ctx.db,
        { userId: s.userId, workspaceId: current.id },
        {
          kind: f.kind,
          mimeType: f.mime,
          bytes: f.bytes,
          width: f.width,
          height: f.height,
          durationSeconds: f.durationSeconds,
          labels: parseLabels(result.fields.labels),
          title: result.fields.title?.trim().slice(0, 200) || null,
          originalName: f.originalName,
          storageKey: f.storageKey,
          sha256: f.sha256,
          source: "upload",
        },
      );
      ctx.log.info({ asset_id: asset.asset_id, kind: asset.kind, bytes: asset.bytes }, "media uploaded");
      res.redirect(303, `/media?workspace_id=${current.id}&uploaded=${asset.asset_id}`);
    } catch (err) {
      if (!(err instanceof UploadError)) throw err;
      if (err.status === 403) {
        res.status(403).type("text/plain").send("Forbidden: the form has expired");
        return;
      }
      await show(req, res, err.status, { kind: "error", text: err.message });
    }
  });

  router.get("/media/:id/file", headers, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    const file = await mediaFileOfUser(ctx.db, s.userId, String(req.params.id));
    const stored = file ? await storage.read(file.storageKey).catch(() => undefined) : undefined;
    if (!file || !stored) {
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
    const ranges = req.headers.range ? req.range(stored.bytes, { combine: true }) : undefined;
    if (ranges === -1) {
      stored.stream.destroy();
      res
        .status(416)
        .set({ ...headers, "Content-Range": `bytes */${stored.bytes}` })
        .end();
      return;
    }
    if (Array.isArray(ranges) && ranges.type === "bytes" && ranges.length === 1) {
      const { start, end } = ranges[0]!;
      res.status(206).set({
        ...headers,
        "Content-Range": `bytes ${start}-${end}/${stored.bytes}`,
        "Content-Length": String(end - start + 1),
      });
      if (req.method === "HEAD") {
        stored.stream.destroy();
        res.end();
        return;
      }
      await pipeline(stored.stream, byteSlice(start, end), res).catch(() => res.destroy());
      return;
    }
    res.status(200).set({ ...headers, "Content-Length": String(stored.bytes) });
    stored.stream.pipe(res);
  });

  return router;
}
