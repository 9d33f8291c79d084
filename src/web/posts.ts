/**
 * The posts page (service spec 1.9: canceling a schedule is a browser action, no tool does it). Session
 * required; the workspace is `workspace_id` when the user is a member, else their first workspace:
 *   GET  /posts                              posts newest first with schedules and deliveries per network,
 *        ?status= &network= (filters) &cursor= (older posts) &week=YYYY-MM-DD (the week view)
 *   GET  /posts/schedules/{id}/cancel        the confirmation page of canceling a pending schedule
 *   POST /posts/schedules/{id}/cancel        (session + CSRF) cancels its deliveries that have not started
 *                                            and, when none had, the schedule (src/domain/social/schedules.ts
 *                                            `cancelSchedule`); 303 back to /posts. Another user's schedule
 *                                            is 404; one with nothing left to cancel is 409.
 * Times are shown in the user's time zone (src/domain/account/time-zone.ts; UTC until one is chosen). Queries live in
 * src/domain/social/post-activity.ts.
 */
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { userTimeZone } from "../domain/account/time-zone.ts";
import { automationsNeedingReview } from "../domain/automations/publish-binding.ts";
import { POST_STATUSES, type PostStatus } from "../domain/content/posts.ts";
import { listPostActivity, scheduleActivity, schedulesBetween } from "../domain/social/post-activity.ts";
import { cancelSchedule } from "../domain/social/schedules.ts";
import { ToolError } from "../errors.ts";
import { isNetwork } from "../providers/social/types.ts";
import { problemPage } from "./html.ts";
import { pickWorkspace } from "./media.ts";
import { cancelable, POSTS_PATH, renderCancelPage, renderPostsPage } from "./posts-page.ts";
import { signedInPage } from "./guards.ts";
import { type BrowserSession, requireCsrf } from "./session.ts";
import { zonedWeek } from "./time.ts";

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function problem(res: Response, status: number, title: string, message: string, back: string): void {
  res
    .status(status)
    .type("html")
    .send(problemPage(title, message, { href: back, label: "Back to Posts" }, POSTS_PATH));
}

/** The router of /posts. */
export function postsRoutes(ctx: AppContext): Router {
  const router = Router();
  const guard = signedInPage(ctx, "browser:posts");
  const form = express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 });

  /** The owner of the request (session user, chosen workspace), or undefined after answering 404. */
  const ownerOf = async (res: Response, asked: unknown) => {
    const s = res.locals.session as BrowserSession;
    const { all, current } = await pickWorkspace(ctx, s.userId, asked);
    if (!current) {
      problem(res, 404, "Not found", "No such workspace.", POSTS_PATH);
      return undefined;
    }
    return { session: s, all, current, owner: { userId: s.userId, workspaceId: current.id } };
  };

  router.get(POSTS_PATH, ...guard, async (req: Request, res: Response) => {
    const o = await ownerOf(res, req.query.workspace_id);
    if (!o) return;
    const status = POST_STATUSES.find((s) => s === req.query.status) as PostStatus | undefined;
    const network = isNetwork(req.query.network) ? req.query.network : undefined;
    const timeZone = (await userTimeZone(ctx.db, o.session.userId)) ?? "UTC";
    const week = zonedWeek(timeZone, ctx.clock.now(), req.query.week);
    let list: Awaited<ReturnType<typeof listPostActivity>>;
    try {
      list = await listPostActivity(ctx.db, o.owner, { status, network, cursor: str(req.query.cursor) });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      return problem(res, 400, "Bad request", "This page link is not valid any more.", POSTS_PATH);
    }
    const entries = await schedulesBetween(ctx.db, o.owner, week.days[0]!.start, week.days[6]!.end);
    const reviews = await automationsNeedingReview(ctx.db, o.owner);
    const notice =
      req.query.canceled === "1"
        ? ({ kind: "ok", text: "The schedule was canceled. Nothing was sent to the networks." } as const)
        : undefined;
    res.type("html").send(
      renderPostsPage({
        csrfToken: o.session.csrfToken,
        workspace: o.current,
        workspaces: o.all,
        timeZone,
        filter: { status, network },
        posts: list.items,
        nextCursor: list.next_cursor,
        week: { ...week, entries },
        notice,
        automationsNeedingReview: reviews,
      }),
    );
  });

  router.get(`${POSTS_PATH}/schedules/:id/cancel`, ...guard, async (req, res) => {
    const o = await ownerOf(res, req.query.workspace_id);
    if (!o) return;
    const found = await scheduleActivity(ctx.db, o.owner, String(req.params.id));
    if (!found) return problem(res, 404, "Not found", "No such schedule.", POSTS_PATH);
    if (!cancelable(found.schedule))
      return problem(
        res,
        409,
        "Cannot cancel",
        `This schedule is ${found.schedule.status} and none of its deliveries is still waiting; nothing is left to cancel.`,
        `${POSTS_PATH}?workspace_id=${o.current.id}`,
      );
    res.type("html").send(
      renderCancelPage({
        csrfToken: o.session.csrfToken,
        workspaceId: o.current.id,
        timeZone: (await userTimeZone(ctx.db, o.session.userId)) ?? "UTC",
        ...found,
      }),
    );
  });

  router.post(`${POSTS_PATH}/schedules/:id/cancel`, ...guard, form, requireCsrf(), async (req, res) => {
    const o = await ownerOf(res, (req.body as Record<string, unknown>).workspace_id);
    if (!o) return;
    const back = `${POSTS_PATH}?workspace_id=${o.current.id}`;
    try {
      await cancelSchedule(ctx, o.owner, String(req.params.id));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      if (err.code === "not_found") return problem(res, 404, "Not found", "No such schedule.", back);
      const why = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
      return problem(res, 409, "Cannot cancel", why, back);
    }
    ctx.log.info({ schedule_id: req.params.id }, "schedule canceled in the browser");
    res.redirect(303, `${back}&canceled=1`);
  });
  return router;
}
