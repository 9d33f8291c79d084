/**
 * The server's identity, capabilities and instructions, returned by server/discover (2026-07-28), initialize
 * (legacy) and on every 2026-07-28 result as `_meta["io.modelcontextprotocol/serverInfo"]`.
 */
import { createRequire } from "node:module";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "./views/catalog.ts";

export { INSTRUCTIONS } from "./instructions.ts";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

export const SERVER_INFO = { name: "social-mcp", title: "Social MCP", version: pkg.version } as const;

/**
 * Capabilities: tools, resources (the MCP Apps views; no subscriptions or list-changed notifications),
 * prompts and completions of their arguments, and the MCP Apps extension (spec 2026-01-26, SEP-1724
 * `extensions`) with the view MIME type. No logging.
 */
export const SERVER_CAPABILITIES = {
  tools: {},
  resources: {},
  prompts: {},
  completions: {},
  extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
} as const;
