/** Routes of the landing, login, logout and settings pages (src/web/login.ts, settings.ts, account-settings.ts). */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { accountSettingsRoutes } from "./account-settings.ts";
import { homeRoutes } from "./home.ts";
import { loginRoutes } from "./login.ts";
import { reviewRoutes } from "./review.ts";
import { settingsRoutes } from "./settings.ts";
import { timeZoneRoutes } from "./time-zone-setting.ts";

/**
 * The browser router: / (landing page), /login, /logout, /settings (account settings),
 * /settings/integrations/mcp and its revoke action, /settings/time-zone (the owner's time zone).
 */
export function browserRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(homeRoutes(ctx));
  router.use(loginRoutes(ctx));
  router.use(settingsRoutes(ctx));
  router.use(accountSettingsRoutes(ctx));
  router.use(timeZoneRoutes(ctx));
  router.use(reviewRoutes(ctx));
  return router;
}
