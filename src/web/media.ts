/** Routes of the media library upload pages (/media), issue 6. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function mediaRoutes(_ctx: AppContext): Router {
  return Router();
}
