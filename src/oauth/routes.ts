/** Routes of OAuth metadata, registration, authorize, token and revoke, issue 3. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function oauthRoutes(_ctx: AppContext): Router {
  return Router();
}
