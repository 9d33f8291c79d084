/**
 * The MCP Apps views of the service (extension `io.modelcontextprotocol/ui`, SEP-1865, spec 2026-01-26
 * "UI Resource Format"): one `ui://` resource per view, an HTML document the host shows in a sandboxed frame
 * with a tool's input and result. Which tools a view shows is said in tools.yaml (`_meta.ui.resourceUri`);
 * codegen checks every such URI against this list and builds each view's document from
 * `src/mcp/views/<name>/` (codegen/emit/views.ts). Shared by the endpoint, codegen and the guide.
 */

/** The extension identifier (client and server capabilities `extensions`). */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";

/** The MIME type of an MCP Apps HTML view (resources/list, resources/read). */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/** The key of the view data a tool result carries in `_meta` for hosts that show views (docs/mcp-apps.md). */
export const VIEW_META_KEY = "social-mcp/view";

export interface ViewSpec {
  /** Directory under src/mcp/views/ and file name under generated/views/. */
  name: "carousel" | "post" | "video";
  uri: string;
  title: string;
  /** What the view shows (resources/list `description`, the guide). */
  description: string;
}

/** Every view, in the order resources/list gives them. */
export const VIEWS: readonly ViewSpec[] = [
  {
    name: "carousel",
    uri: "ui://social-mcp/carousel",
    title: "Carousel",
    description:
      "The slides of a carousel at their real size with slide numbers and each slide's state while it renders " +
      "(refreshed with get_carousel), the caption and the credits charged; a pending approval opens in the browser.",
  },
  {
    name: "post",
    uri: "ui://social-mcp/post",
    title: "Post",
    description:
      "A post as each destination network will show it (caption cut at the network's limit, the network's " +
      "rules), its deliveries with their state and links; a pending approval opens in the browser.",
  },
  {
    name: "video",
    uri: "ui://social-mcp/video",
    title: "Automation video",
    description:
      "An automation run: its video in a player with duration and template, its state and the posts it " +
      "produced; a pending run approval opens in the browser.",
  },
];

/** The view whose URI is `uri`, or undefined. */
export function viewByUri(uri: string): ViewSpec | undefined {
  return VIEWS.find((v) => v.uri === uri);
}
