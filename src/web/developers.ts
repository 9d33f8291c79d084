/** Routes of the developer reference (/developers/mcp), issue 2. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function developerRoutes(_ctx: AppContext): Router {
  return Router();
}
