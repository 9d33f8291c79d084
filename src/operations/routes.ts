/** Routes of the approval pages (/settings/integrations/mcp/requests/{uuid}), issue 5. */
import { Router } from "express";
import type { AppContext } from "../context.ts";

export function operationRoutes(_ctx: AppContext): Router {
  return Router();
}
