/**
 * The page a browser gets for a workspace that is not active (suspended or removed by the operator,
 * src/domain/account/suspension.ts): /media, /review and /settings/social show it instead of the
 * workspace's content and refuse its forms, as the MCP endpoint refuses the workspace's tokens (service
 * spec 5.8 "account status"). 403, never cached.
 */
import type { Response } from "express";
import { html, page } from "./html.ts";

/** A workspace as the pages pick it: its name and status (`workspaces.status`). */
export interface PickedWorkspace {
  name: string;
  status: string;
}

/**
 * Sends the suspended-workspace page when `workspace` is not active.
 * @returns true when the page was sent (the route stops), false for an active workspace.
 */
export function refuseInactiveWorkspace(res: Response, workspace: PickedWorkspace): boolean {
  if (workspace.status === "active") return false;
  const state = workspace.status === "removed" ? "removed" : "suspended";
  res
    .status(403)
    .set("Cache-Control", "no-store")
    .type("html")
    .send(
      page(
        "Workspace suspended",
        html`<h1>This workspace is ${state}</h1><p class="error" role="alert">The workspace ${workspace.name} is ${state}: its media, reviews and social accounts cannot be used, its connections to assistants are refused and its posts are not published. Contact the operator of this service.</p><p><a href="/settings">Your settings</a></p>`,
      ),
    );
  return true;
}
