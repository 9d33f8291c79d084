/**
 * The view's side of MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26 "Communication
 * Protocol", "Lifecycle", "Data Passing"): JSON-RPC 2.0 over `postMessage` with the host (window.parent).
 * - `connect()` sends `ui/initialize` and, once answered, `ui/notifications/initialized`; the host then sends
 *   `ui/notifications/tool-input` and `ui/notifications/tool-result` (or `tool-cancelled`);
 * - `callTool` sends `tools/call` (the host forwards it to this view's server), `openLink` sends
 *   `ui/open-link`;
 * - the view answers the host's `ping` and `ui/resource-teardown`, applies `host-context-changed`, and reports
 *   its size with `ui/notifications/size-changed` whenever its content changes.
 * Written for the views instead of the SDK's `App` class, whose bundle (zod and the client Protocol, about
 * 650 KB) would be most of every view (docs/mcp-apps.md); the message shapes are the SDK's own types, and
 * the tests drive every view through the SDK's `AppBridge`, which validates each message.
 */
import type {
  McpUiHostContext,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiToolInputNotification,
  McpUiToolResultNotification,
} from "@modelcontextprotocol/ext-apps";

/** The MCP Apps protocol revision the views speak. */
export const APPS_PROTOCOL_VERSION = "2026-01-26";

/** A tools/call result (MCP CallToolResult) as the view reads it. */
export type ToolResult = McpUiToolResultNotification["params"];

/** Tool arguments as the host passes them (`ui/notifications/tool-input`). */
export type ToolArguments = NonNullable<McpUiToolInputNotification["params"]["arguments"]>;

export interface BridgeHandlers {
  input?(args: ToolArguments): void;
  result?(result: ToolResult): void;
  cancelled?(reason: string | undefined): void;
  context?(context: McpUiHostContext): void;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** A JSON-RPC error answered by the host, with its code. */
export class HostError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
    this.name = "HostError";
  }
}

/** The connection of one view to its host. */
export class Bridge {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private context: McpUiHostContext = {};
  private readonly appInfo: { name: string; version: string };
  private readonly handlers: BridgeHandlers;
  private readonly host: Window;

  constructor(
    appInfo: { name: string; version: string },
    handlers: BridgeHandlers,
    host: Window = window.parent,
  ) {
    this.appInfo = appInfo;
    this.handlers = handlers;
    this.host = host;
  }

  /** The host context received at initialize, merged with every later change. */
  get hostContext(): McpUiHostContext {
    return this.context;
  }

  /**
   * Starts listening, initializes with the host and starts reporting the view's size.
   * @throws HostError when the host refuses `ui/initialize`.
   */
  async connect(): Promise<McpUiInitializeResult> {
    window.addEventListener("message", (event) => {
      if (event.source !== this.host) return;
      this.receive(event.data);
    });
    const params: McpUiInitializeRequest["params"] = {
      appInfo: this.appInfo,
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: APPS_PROTOCOL_VERSION,
    };
    const result = (await this.request("ui/initialize", params)) as McpUiInitializeResult;
    this.applyContext(result.hostContext ?? {});
    this.notify("ui/notifications/initialized", {});
    this.reportSize();
    return result;
  }

  /**
   * Calls a tool of this view's server through the host (`tools/call`). Views only call read tools.
   * @throws HostError when the host or the server refuses the call.
   */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.request("tools/call", { name, arguments: args })) as ToolResult;
  }

  /** Asks the host to open `url` in the user's browser (`ui/open-link`). @throws HostError when refused. */
  async openLink(url: string): Promise<void> {
    await this.request("ui/open-link", { url });
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.host.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
    });
  }

  private notify(method: string, params: unknown): void {
    this.host.postMessage({ jsonrpc: "2.0", method, params }, "*");
  }

  private answer(id: unknown, result: unknown): void {
    this.host.postMessage({ jsonrpc: "2.0", id, result }, "*");
  }

  private receive(message: unknown): void {
    if (typeof message !== "object" || message === null) return;
    const m = message as {
      jsonrpc?: string;
      id?: unknown;
      method?: unknown;
      params?: any;
      result?: unknown;
      error?: any;
    };
    if (m.jsonrpc !== "2.0") return;
    if (typeof m.method !== "string") {
      const waiting = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
      if (!waiting) return;
      this.pending.delete(m.id as number);
      if (m.error) waiting.reject(new HostError(Number(m.error.code), String(m.error.message ?? "error")));
      else waiting.resolve(m.result);
      return;
    }
    if (m.id !== undefined) {
      // Requests from the host: ping and teardown need only an empty result.
      if (m.method === "ping" || m.method === "ui/resource-teardown") this.answer(m.id, {});
      else
        this.host.postMessage(
          { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } },
          "*",
        );
      return;
    }
    switch (m.method) {
      case "ui/notifications/tool-input":
        this.handlers.input?.((m.params?.arguments ?? {}) as ToolArguments);
        break;
      case "ui/notifications/tool-result":
        this.handlers.result?.(m.params as ToolResult);
        break;
      case "ui/notifications/tool-cancelled":
        this.handlers.cancelled?.(typeof m.params?.reason === "string" ? m.params.reason : undefined);
        break;
      case "ui/notifications/host-context-changed":
        this.applyContext(m.params ?? {});
        break;
    }
  }

  /** Merges `change` into the host context; applies its theme and style variables to the document. */
  private applyContext(change: McpUiHostContext): void {
    this.context = { ...this.context, ...change };
    const root = document.documentElement;
    if (change.theme === "light" || change.theme === "dark") {
      root.dataset.theme = change.theme;
      root.style.colorScheme = change.theme;
    }
    for (const [name, value] of Object.entries(change.styles?.variables ?? {}))
      if (typeof value === "string" && name.startsWith("--")) root.style.setProperty(name, value);
    this.handlers.context?.(this.context);
  }

  /** Sends `ui/notifications/size-changed` now and whenever the content's size changes (once per frame). */
  private reportSize(): void {
    let scheduled = false;
    let last = "";
    const measure = () => {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(() => {
        scheduled = false;
        const root = document.documentElement;
        const previous = root.style.height;
        root.style.height = "max-content";
        const height = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = previous;
        const width = Math.ceil(window.innerWidth);
        const key = `${width}x${height}`;
        if (key === last) return;
        last = key;
        this.notify("ui/notifications/size-changed", { width, height });
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}
