/**
 * Routes of the approval pages (service spec 4.4):
 *   GET  /settings/integrations/mcp/requests/{uuid}   owner session; anyone else gets 404
 *   POST /settings/integrations/mcp/requests/{uuid}   owner session + CSRF; `decision` = approve | decline
 * Helmet page headers (src/web/security.ts), the browser rate limit (RATE_LIMIT_BROWSER per IP per minute)
 * and POST-redirect-GET: a decision answers 303 back to the page, which shows the resulting state.
 */
import { isUuid } from "../ids.ts";
import express, { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { clientName } from "../domain/account/connections.ts";
import { userTimeZone } from "../domain/account/time-zone.ts";
import { page } from "./html.ts";
import { signedInPage } from "./guards.ts";
import { type BrowserSession, requireCsrf } from "./session.ts";
import { DECISION_NOTICES, renderApprovalPage } from "./approval-page.ts";
import { type Decision, decideOperation } from "../operations/approvals.ts";
import { loadOperation, openDescription } from "../domain/operations/store.ts";
import { toolLookup } from "../operations/tools.ts";

const PATH = "/settings/integrations/mcp/requests/:id";

/** The approval routes for `ctx`. */
export function operationRoutes(ctx: AppContext): Router {
  const router = Router();
  const guard = signedInPage(ctx, "browser:requests");
  router.get(PATH, ...guard, (req, res) => show(ctx, req, res));
  router.post(
    PATH,
    ...guard,
    express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 20 }),
    requireCsrf(),
    (req, res) => decide(ctx, req, res),
  );
  return router;
}

function notFound(res: Response): void {
  res.status(404).type("html").send(page("Not found", "This request does not exist."));
}

async function show(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const session = res.locals.session as BrowserSession;
  const id = String(req.params.id);
  const op = isUuid(id) ? await loadOperation(ctx.db, id) : undefined;
  if (!op || op.user_id !== session.userId) return notFound(res);
  const client = await clientName(ctx.db, op.client_id);
  let title = op.tool;
  let credits: string | undefined;
  try {
    const tool = (await toolLookup(ctx))(op.tool);
    title = tool?.title ?? op.tool;
    credits = tool?.credits;
  } catch {
    // registry unavailable: the tool name is still shown
  }
  const result = typeof req.query.result === "string" ? req.query.result : undefined;
  res
    .status(200)
    .type("html")
    .send(
      renderApprovalPage({
        op,
        toolTitle: title,
        toolCredits: credits,
        clientName: client,
        // Clients register themselves (RFC 7591 dynamic registration); none is verified by the operator.
        clientVerified: false,
        description: openDescription(ctx, op),
        csrfToken: session.csrfToken,
        now: ctx.clock.now(),
        timeZone: await userTimeZone(ctx.db, session.userId),
        notice: result ? DECISION_NOTICES[result] : undefined,
      }),
    );
}

async function decide(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const session = res.locals.session as BrowserSession;
  const id = String(req.params.id);
  if (!isUuid(id)) return notFound(res);
  const decision = (req.body as Record<string, unknown> | undefined)?.decision;
  if (decision !== "approve" && decision !== "decline") {
    res.status(400).type("html").send(page("Bad request", "Choose Approve or Decline."));
    return;
  }
  const result = await decideOperation(ctx, id, session.userId, decision as Decision);
  if (result.kind === "not_found") return notFound(res);
  res.redirect(303, `/settings/integrations/mcp/requests/${id}?result=${result.kind}`);
}
