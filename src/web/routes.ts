/** Routes of login, logout and the MCP settings pages, issue 3. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function browserRoutes(_ctx: AppContext): Router {
  return Router();
}
