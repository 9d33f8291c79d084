/** Routes of the MCP endpoint (POST /mcp), issue 4. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function mcpRoutes(_ctx: AppContext): Router {
  return Router();
}
