/**
 * Browser side of the MCP Apps test host (test/helpers/app-host.ts): a page that shows one view the way a
 * web host does (MCP Apps spec 2026-01-26 "Sandbox proxy", "Host Behavior"): the view's HTML in an iframe
 * sandboxed to `allow-scripts` (an opaque origin, unlike the host page's), with the CSP the spec builds from
 * the resource's `_meta.ui.csp`, talking to the official `AppBridge` of @modelcontextprotocol/ext-apps over
 * `postMessage`. The bridge answers `ui/initialize`, then sends the tool input and result; it forwards the
 * view's `tools/call` and `ui/open-link` to functions the test exposes (hostCallTool, hostOpenLink) and
 * follows the view's size. Bundled for the browser by app-host.ts; never imported by Node.
 */
import {
  AppBridge,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    hostCallTool(name: string, args: Record<string, unknown>): Promise<any>;
    hostOpenLink(url: string): Promise<void>;
    hostLog(line: string): Promise<void>;
    showView(options: ShowView): Promise<void>;
    /** Set once the view sent `ui/notifications/initialized`. */
    viewInitialized: boolean;
  }
}

export interface ShowView {
  html: string;
  csp: McpUiResourceCsp | undefined;
  toolName: string;
  args: Record<string, unknown>;
  result: any;
  hostContext: McpUiHostContext;
}

/** The CSP of a view (the spec's "CSP Construction from Metadata"). */
function cspOf(csp: McpUiResourceCsp | undefined): string {
  const res = (csp?.resourceDomains ?? []).join(" ");
  const con = (csp?.connectDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${con}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `frame-src ${(csp?.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(" ") || "'self'"}`,
  ].join("; ");
}

window.viewInitialized = false;

window.showView = async (o: ShowView) => {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${cspOf(o.csp).replaceAll('"', "&quot;")}">`;
  const html = o.html.replace(/<head>/i, `<head>${meta}`);
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("title", `View of ${o.toolName}`);
  iframe.style.cssText = "width: 100%; height: 200px; border: 1px solid #ccc; border-radius: 8px;";
  iframe.srcdoc = html;
  document.getElementById("host")!.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: "social-mcp-test-host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, logging: {} },
    {
      hostContext: {
        ...o.hostContext,
        toolInfo: { tool: { name: o.toolName, inputSchema: { type: "object" } } },
      },
    },
  );
  bridge.oncalltool = async (params) => window.hostCallTool(params.name, params.arguments ?? {});
  bridge.onopenlink = async ({ url }) => {
    await window.hostOpenLink(url);
    return {};
  };
  bridge.onloggingmessage = (params) => void window.hostLog(JSON.stringify(params));
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    window.viewInitialized = true;
    void bridge.sendToolInput({ arguments: o.args }).then(() => bridge.sendToolResult(o.result));
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
};
