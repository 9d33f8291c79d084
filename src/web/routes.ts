/** Routes of login, logout and the MCP settings pages, issue 3 (src/web/login.ts, src/web/settings.ts). */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { homeRoutes } from "./home.ts";
import { loginRoutes } from "./login.ts";
import { reviewRoutes } from "./review.ts";
import { settingsRoutes } from "./settings.ts";

/** The browser router: / (landing page), /login, /logout, /settings/integrations/mcp and its revoke action. */
export function browserRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(homeRoutes(ctx));
  router.use(loginRoutes(ctx));
  router.use(settingsRoutes(ctx));
  router.use(reviewRoutes(ctx));
  return router;
}
