/** Routes of the landing, login, logout and settings pages (src/web/login.ts, settings.ts, account-settings.ts). */
import { Router } from "express";
import type { AppContext } from "../context.ts";
import { accountSettingsRoutes } from "./account-settings.ts";
import { assetRoutes } from "./assets.ts";
import { iconRoutes } from "./icons.ts";
import { homeRoutes } from "./home.ts";
import { loginRoutes } from "./login.ts";
import { postsRoutes } from "./posts.ts";
import { reviewRoutes } from "./review.ts";
import { settingsRoutes } from "./settings.ts";
import { timeZoneRoutes } from "./time-zone-setting.ts";

/**
 * The browser router: /assets/{name} (the stylesheets and the icon), / (landing page), /login, /logout, /settings (account settings),
 * /settings/integrations/mcp and its revoke action, /settings/time-zone (the owner's time zone), /review
 * (TikTok), /posts (src/web/posts.ts).
 */
export function browserRoutes(ctx: AppContext): Router {
  const router = Router();
  const pages = [
    homeRoutes,
    loginRoutes,
    settingsRoutes,
    accountSettingsRoutes,
    timeZoneRoutes,
    reviewRoutes,
    postsRoutes,
  ];
  router.use(iconRoutes());
  router.use(assetRoutes());
  for (const routes of pages) router.use(routes(ctx));
  return router;
}
