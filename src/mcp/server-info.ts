/**
 * The server's identity, capabilities and instructions, returned by server/discover (2026-07-28, the full
 * identity in `_meta["io.modelcontextprotocol/serverInfo"]`), initialize (legacy, `serverInfo`) and, as
 * `{name, version}`, on every other 2026-07-28 result. The identity (MCP schema `Implementation`) carries the
 * title, a description, the website (the service's own base URL) and icons served by the service
 * (src/web/icons.ts): what hosts and directory reviewers show.
 */
import { createRequire } from "node:module";
import { ICON_SVG_PATH, ICON_PNG_PATH, ICON_PNG_SIZE } from "../web/icon-paths.ts";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "./views/catalog.ts";

export { INSTRUCTIONS } from "./instructions.ts";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** What the service does, in one sentence (MCP Implementation `description`; server.json `description`). */
export const SERVER_DESCRIPTION =
  "AI carousels, captions and scheduling to seven social networks, with browser approval of every post.";

export const SERVER_INFO = { name: "social-mcp", title: "Social MCP", version: pkg.version } as const;

/** One icon of MCP's Implementation `icons`. */
export interface ServerIcon {
  src: string;
  mimeType: "image/svg+xml" | "image/png";
  sizes: string[];
}

/** The icons of a service at `baseUrl`: the SVG (any size) and a PNG of ICON_PNG_SIZE pixels. */
export function serverIcons(baseUrl: string): ServerIcon[] {
  return [
    { src: `${baseUrl}${ICON_SVG_PATH}`, mimeType: "image/svg+xml", sizes: ["any"] },
    {
      src: `${baseUrl}${ICON_PNG_PATH}`,
      mimeType: "image/png",
      sizes: [`${ICON_PNG_SIZE}x${ICON_PNG_SIZE}`],
    },
  ];
}

/** The full identity (MCP Implementation) of a service at `baseUrl`. */
export function serverIdentity(baseUrl: string) {
  return {
    ...SERVER_INFO,
    description: SERVER_DESCRIPTION,
    websiteUrl: baseUrl,
    icons: serverIcons(baseUrl),
  };
}

/**
 * Capabilities: tools, resources (the MCP Apps views and the guide; no subscriptions or list-changed
 * notifications), prompts and completions of their arguments, and the MCP Apps extension (spec 2026-01-26,
 * SEP-1724 `extensions`) with the view MIME type. No logging.
 */
export const SERVER_CAPABILITIES = {
  tools: {},
  resources: {},
  prompts: {},
  completions: {},
  extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
} as const;
