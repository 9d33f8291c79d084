/**
 * The TikTok review UI (service spec 1.11; networks.md 2.1 "Required UX for the Direct Post audit"): the only
 * way a post reaches TikTok. Session required; the workspace is `workspace_id` when the user is a member,
 * else the user's first workspace; a workspace that is not active gets the suspended page.
 *   GET  /review                         posts waiting for TikTok + approved posts to pick
 *   GET  /review/posts/{post}            preview, account, fresh creator_info, the creator options form
 *        ?delivery_id= (a waiting delivery) &account_id= (the chosen TikTok account)
 *   POST /review/posts/{post}            (session + CSRF) validates against a fresh creator_info and the
 *                                        content fingerprint the form carries (a post changed since the page
 *                                        was drawn is refused and drawn again), records the consent and
 *                                        queues the delivery with exactly those options; 303 to
 *   GET  /review/deliveries/{delivery}   the delivery state ("processing can take a few minutes")
 *   GET  /review/review.js               the small script enabling/disabling controls
 */
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import type { Owner } from "../domain/owner.ts";
import { isUuid } from "../ids.ts";
import { openAccount } from "../domain/social/accounts.ts";
import { refreshAccountTokens } from "../domain/social/refresh.ts";
import { postLabel } from "../domain/social/publish.ts";
import {
  consentAndQueue,
  reviewedDelivery,
  reviewQueue,
  reviewTarget,
  type ReviewTarget,
  tiktokAccountsOf,
} from "../domain/social/review.ts";
import { ToolError } from "../errors.ts";
import { NetworkAuthError } from "../providers/social/network.ts";
import { queryCreatorInfo, sandboxCreatorInfo } from "../providers/social/tiktok/creator-info.ts";
import {
  type ReviewChoice,
  type ReviewProblem,
  validateReviewChoice,
} from "../providers/social/tiktok/options.ts";
import { page } from "./html.ts";
import {
  type CreatorState,
  declarationText,
  emptyChoice,
  renderQueue,
  renderReviewForm,
  renderStatus,
} from "./review-page.ts";
import { REVIEW_SCRIPT } from "./review-script.ts";
import { refuseInactiveWorkspace } from "./suspended.ts";
import { cspHeader, pageHeaders } from "./security.ts";
import { type BrowserSession, csrfOk, requireSession } from "./session.ts";

/** The page CSP: the shared one (./security.ts) plus this origin's script (./review-script.ts), which fetches the status page. */
const REVIEW_CSP = `${cspHeader()}; script-src 'self'; connect-src 'self'`;

/**
 * The owner of the page (the asked workspace when the user is a member, else the first), or undefined after
 * sending the not-found page (no such workspace) or the suspended page (src/web/suspended.ts).
 */
async function ownerFor(
  ctx: AppContext,
  res: Response,
  userId: string,
  asked: unknown,
): Promise<Owner | undefined> {
  const rows: Array<{ id: string; name: string; status: string }> = await ctx
    .db("memberships as m")
    .join("workspaces as w", "w.id", "m.workspace_id")
    .where("m.user_id", userId)
    .orderByRaw("case when w.owner_user_id = ? then 0 else 1 end, w.created_at, w.id", [userId])
    .select("w.id", "w.name", "w.status");
  const chosen = typeof asked === "string" && isUuid(asked) ? rows.find((w) => w.id === asked) : rows[0];
  if (!chosen) {
    notFoundPage(res);
    return undefined;
  }
  if (refuseInactiveWorkspace(res, chosen)) return undefined;
  return { userId, workspaceId: chosen.id };
}

/** Refresh the access token before creator_info when it expires within this many seconds. */
const TOKEN_MARGIN_SECONDS = 60;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The creator info of the chosen account, fetched fresh (live) or the sandbox's. */
async function creatorState(ctx: AppContext, accountId: string | undefined): Promise<CreatorState> {
  if (!accountId) return { state: "no_account" };
  const account = await openAccount(ctx.db, ctx.sealer, accountId);
  if (account.status !== "connected") {
    return {
      state: "unavailable",
      reason: "This TikTok account needs to be reconnected on /settings/social.",
    };
  }
  if (account.mode === "sandbox") {
    return { state: "ok", info: sandboxCreatorInfo(account.handle ?? "sandbox"), sandbox: true };
  }
  try {
    let token = account.tokens.accessToken;
    const exp = account.tokens.expiresAt;
    if (exp && exp.getTime() - ctx.clock.now().getTime() < TOKEN_MARGIN_SECONDS * 1000) {
      // The 24 h access token is about to expire (the refresh pass has not run yet): refresh it first,
      // under the account's refresh lock (src/domain/social/refresh.ts).
      const adapter = ctx.providers.networks.forAccount("tiktok", "live");
      const outcome = await refreshAccountTokens(ctx, account.id, adapter, TOKEN_MARGIN_SECONDS);
      if (outcome.kind === "not_connected")
        return {
          state: "unavailable",
          reason: "This TikTok account needs to be reconnected on /settings/social.",
        };
      token = outcome.tokens.accessToken;
    }
    const r = await queryCreatorInfo(ctx.providers.socialHttp, token);
    return r.canPost
      ? { state: "ok", info: r.info, sandbox: false }
      : { state: "cannot_post", reason: r.reason };
  } catch (err) {
    if (err instanceof NetworkAuthError) {
      return {
        state: "unavailable",
        reason: "TikTok refused this account's sign-in. Reconnect it on /settings/social.",
      };
    }
    ctx.log.warn({ err: (err as Error).name }, "review: creator_info failed");
    return { state: "unavailable", reason: "TikTok did not answer. Try again in a moment." };
  }
}

function kindOf(target: ReviewTarget): { kind: "video" | "photo"; durationSeconds: number | undefined } {
  const video = target.media.find((m) => m.kind === "video");
  return video
    ? { kind: "video", durationSeconds: video.durationSeconds ?? undefined }
    : { kind: "photo", durationSeconds: undefined };
}

function choiceFrom(body: Record<string, unknown>): ReviewChoice {
  const on = (k: string) => body[k] === "on";
  return {
    privacyLevel: str(body.privacy_level),
    allowComment: on("allow_comment"),
    allowDuet: on("allow_duet"),
    allowStitch: on("allow_stitch"),
    disclose: on("disclose"),
    yourBrand: on("your_brand"),
    brandedContent: on("branded_content"),
    title: typeof body.title === "string" ? body.title : "",
    description: typeof body.description === "string" ? body.description : "",
    consent: on("consent"),
  };
}

function notFoundPage(res: Response): void {
  res.status(404).type("html").send(page("Not found", "Not found"));
}

/** The review router (see the module comment). */
export function reviewRoutes(ctx: AppContext): Router {
  const router = Router();
  const session = requireSession(ctx);
  const headers = pageHeaders(ctx);
  const csp: express.RequestHandler = (_req, res, next) => {
    res.setHeader("Content-Security-Policy", REVIEW_CSP);
    next();
  };
  const formBody = express.urlencoded({ extended: false, limit: "32kb", parameterLimit: 30 });

  router.get("/review/review.js", (_req, res) => {
    res.type("application/javascript").set("Cache-Control", "no-cache").send(REVIEW_SCRIPT);
  });

  router.get("/review", headers, csp, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    const owner = await ownerFor(ctx, res, s.userId, req.query.workspace_id);
    if (!owner) return;
    const queue = await reviewQueue(ctx.db, owner);
    res.type("html").send(renderQueue({ workspaceId: owner.workspaceId, ...queue }));
  });

  /** Renders the form for `req` with `choice` and `problems` (status 200, or 400 after a refused POST). */
  const show = async (
    req: Request,
    res: Response,
    input: {
      status: number;
      choice?: ReviewChoice;
      problems?: ReviewProblem[];
      query: Record<string, unknown>;
    },
  ) => {
    const s = res.locals.session as BrowserSession;
    const owner = await ownerFor(ctx, res, s.userId, input.query.workspace_id);
    if (!owner) return;
    let target: ReviewTarget;
    try {
      target = await reviewTarget(ctx.db, owner, String(req.params.post), str(input.query.delivery_id));
    } catch (err) {
      if (err instanceof ToolError && err.code === "not_found") return notFoundPage(res);
      throw err;
    }
    const accounts = await tiktokAccountsOf(ctx.db, owner);
    const asked = str(input.query.account_id);
    const accountId =
      accounts.find((a) => a.id === asked)?.id ??
      accounts.find((a) => a.id === target.accountId)?.id ??
      accounts.find((a) => a.status === "connected")?.id;
    const creator = await creatorState(ctx, accountId);
    const { kind, durationSeconds } = kindOf(target);
    const problems = [...(input.problems ?? [])];
    if (creator.state === "ok" && kind === "video" && durationSeconds !== undefined) {
      const max = creator.info.maxVideoPostDurationSec;
      if (max > 0 && durationSeconds > max && !problems.some((p) => p.field === "video")) {
        problems.push({
          field: "video",
          message: `The video is ${Math.round(durationSeconds)} s long; this account can post videos up to ${max} s.`,
        });
      }
    }
    res
      .status(input.status)
      .type("html")
      .send(
        renderReviewForm({
          csrfToken: s.csrfToken,
          workspaceId: owner.workspaceId,
          post: { id: target.post.id, type: target.post.type, label: postLabel(target.post) },
          media: target.media.map((m) => ({ assetId: m.assetId, kind: m.kind })),
          kind,
          durationSeconds,
          deliveryId: target.deliveryId,
          fingerprint: target.fingerprint,
          accounts,
          accountId,
          creator,
          choice: input.choice ?? emptyChoice(target.post.caption ?? target.post.title ?? "", kind),
          problems,
        }),
      );
  };

  router.get("/review/posts/:post", headers, csp, session, async (req, res) => {
    await show(req, res, { status: 200, query: req.query as Record<string, unknown> });
  });

  router.post("/review/posts/:post", headers, csp, formBody, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    if (!csrfOk(req, s)) {
      res.status(403).type("text/plain").send("Forbidden: the form has expired; reload the page");
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const owner = await ownerFor(ctx, res, s.userId, body.workspace_id);
    if (!owner) return;
    const choice = choiceFrom(body);
    let target: ReviewTarget;
    try {
      target = await reviewTarget(ctx.db, owner, String(req.params.post), str(body.delivery_id));
    } catch (err) {
      if (err instanceof ToolError && err.code === "not_found") return notFoundPage(res);
      throw err;
    }
    const accountId = str(body.account_id);
    const accounts = await tiktokAccountsOf(ctx.db, owner);
    if (!accountId || !accounts.some((a) => a.id === accountId)) {
      return show(req, res, {
        status: 400,
        choice,
        problems: [{ field: "general", message: "Choose a connected TikTok account." }],
        query: body,
      });
    }
    // creator_info is fetched fresh again: the options are checked against what TikTok says now.
    const creator = await creatorState(ctx, accountId);
    if (creator.state !== "ok") return show(req, res, { status: 400, choice, query: body });
    const checked = validateReviewChoice(choice, creator.info, kindOf(target));
    if ("problems" in checked) {
      return show(req, res, { status: 400, choice, problems: checked.problems, query: body });
    }
    try {
      const deliveryId = await consentAndQueue(ctx, owner, {
        postId: target.post.id,
        deliveryId: target.deliveryId ?? undefined,
        accountId,
        options: checked.options,
        declaration: declarationText(checked.options.brand_content_toggle),
        ip: req.ip ?? null,
        shownFingerprint: str(body.content_fingerprint),
      });
      ctx.log.info(
        { delivery_id: deliveryId, post_id: target.post.id },
        "review: TikTok post consented and queued",
      );
      res.redirect(303, `/review/deliveries/${deliveryId}?workspace_id=${owner.workspaceId}`);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      if (err.code === "not_found") return notFoundPage(res);
      return show(req, res, {
        status: 400,
        choice,
        problems: [{ field: "general", message: err.message }],
        query: body,
      });
    }
  });

  router.get("/review/deliveries/:delivery", headers, csp, session, async (req, res) => {
    const s = res.locals.session as BrowserSession;
    const owner = await ownerFor(ctx, res, s.userId, req.query.workspace_id);
    if (!owner) return;
    try {
      const delivery = await reviewedDelivery(ctx.db, owner, String(req.params.delivery));
      res.type("html").send(renderStatus({ workspaceId: owner.workspaceId, delivery }));
    } catch (err) {
      if (err instanceof ToolError && err.code === "not_found") return notFoundPage(res);
      throw err;
    }
  });

  return router;
}
