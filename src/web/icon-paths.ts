/** Where the service serves its icon (src/web/icons.ts), named in the MCP server identity and server.json. */

/** The SVG icon, any size. */
export const ICON_SVG_PATH = "/assets/icon.svg";
/** The PNG icon, ICON_PNG_SIZE pixels square. */
export const ICON_PNG_PATH = "/assets/icon.png";
/** The PNG icon's side, pixels. */
export const ICON_PNG_SIZE = 256;
