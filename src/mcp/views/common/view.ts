/**
 * What the three views share: connecting to the host, the tool input and result they show, the view data
 * (`_meta["social-mcp/view"]`), refreshing through a read tool at the MCP polling pace, the approval block
 * ("Review and approve" opens approval_url in the user's browser through `ui/open-link`; a view never
 * approves and never calls a write tool), links opened through the host, and errors in plain words.
 */
import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { VIEW_META_KEY } from "../catalog.ts";
import { Bridge, type ToolArguments, type ToolResult } from "./bridge.ts";
import type { ViewApproval, ViewData, ViewMedia } from "./data.ts";
import { h, when } from "./dom.ts";

/** The envelope of a tool result (service spec 2.4), as the views read it. */
export interface Envelope {
  request_id?: string;
  status?: string;
  data?: Record<string, any>;
  operation_id?: string;
  approval_url?: string;
  credits_charged?: number;
  error?: { code: string; message: string };
}

/** Everything a view renders from. */
export interface ViewState<D extends ViewData> {
  args: ToolArguments;
  result: ToolResult | null;
  envelope: Envelope | null;
  data: D | null;
  /** The envelope of the latest refresh (read tool), when there was one. */
  polled: Envelope | null;
  /** The tool that produced the result (host context), when the host says. */
  tool: string | null;
  cancelled: boolean;
  /** A refresh that failed, in plain words. */
  refreshError: string | null;
  context: McpUiHostContext;
}

/** Delays between refreshes, milliseconds: about 2 s first, then 5 to 10 s (service instructions). */
export const POLL_DELAYS = [2000, 5000, 5000, 7500, 10000];

/** Refreshes failing in a row before the view stops polling (and says why). */
const MAX_FAILURES = 3;

/** The view data in `result._meta`, when it is of `kind`. */
function viewData<D extends ViewData>(result: ToolResult | null, kind: D["view"]): D | null {
  const data = (result?._meta as Record<string, unknown> | undefined)?.[VIEW_META_KEY] as
    | ViewData
    | undefined;
  return data && data.view === kind ? (data as D) : null;
}

export interface ViewOptions<D extends ViewData> {
  name: string;
  kind: D["view"];
  render(state: ViewState<D>, view: ViewHandle): Node[];
  /** The read tool call that refreshes the view, when it should poll; null when it is final. */
  poll?(state: ViewState<D>): { name: string; args: Record<string, unknown> } | null;
  /** The read tool call that gets fresh media URLs once they expired or failed to load. */
  refresh?(state: ViewState<D>): { name: string; args: Record<string, unknown> } | null;
}

/** What a render may do: open a link, show media, ask for fresh media. */
export interface ViewHandle {
  openLink(url: string): void;
  /**
   * The URL to show `media` with: the first one the view got for that asset while it is valid, so that a
   * refresh (which signs new URLs) does not reload what is on screen.
   */
  src(media: ViewMedia, expiresAt: string): string;
  /** An image or video failed to load (expired URL): refresh once through the read tool. */
  mediaFailed(): void;
  /** Renders again (after a change of the view's own state, such as a chosen tab). */
  redraw(): void;
}

/** Starts the view: connects, renders on every change, polls while `poll` says so. */
export function startView<D extends ViewData>(options: ViewOptions<D>): void {
  const root = document.getElementById("app")!;
  const state: ViewState<D> = {
    args: {},
    result: null,
    envelope: null,
    data: null,
    polled: null,
    tool: null,
    cancelled: false,
    refreshError: null,
    context: {},
  };
  let pollIndex = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let refreshing = false;
  /** When media were last refreshed after failing to load (ms; at most once a minute). */
  let mediaRetriedAt = Number.NEGATIVE_INFINITY;
  /** Refreshes that failed in a row; polling stops after MAX_FAILURES. */
  let failures = 0;
  /** The URL shown for each asset, and until when it is valid (ms). */
  const urls = new Map<string, { url: string; until: number }>();

  const handle: ViewHandle = {
    openLink(url) {
      if (!/^https?:\/\//i.test(url)) return;
      bridge.openLink(url).catch(() => {
        state.refreshError = `Your client did not open the link. Open it yourself: ${url}`;
        draw();
      });
    },
    src(media, expiresAt) {
      const now = Date.now();
      const kept = urls.get(media.asset_id);
      if (kept && kept.until > now + 30_000) return kept.url;
      urls.set(media.asset_id, { url: media.url, until: Date.parse(expiresAt) || now });
      return media.url;
    },
    mediaFailed() {
      if (refreshing || Date.now() - mediaRetriedAt < 60_000) return;
      const call = options.refresh?.(state) ?? options.poll?.(state);
      if (!call) return;
      mediaRetriedAt = Date.now();
      urls.clear();
      void refresh(call);
    },
    redraw: () => draw(),
  };

  /** Renders again, keeping the scroll position of elements marked `data-scroll-key`. */
  const draw = () => {
    const scrolled = new Map<string, number>();
    root.querySelectorAll<HTMLElement>("[data-scroll-key]").forEach((el) => {
      scrolled.set(el.dataset.scrollKey!, el.scrollLeft);
    });
    root.replaceChildren(...options.render(state, handle));
    root.querySelectorAll<HTMLElement>("[data-scroll-key]").forEach((el) => {
      const left = scrolled.get(el.dataset.scrollKey!);
      if (left) el.scrollLeft = left;
    });
  };

  const take = (result: ToolResult) => {
    state.result = result;
    state.envelope = (result.structuredContent as Envelope | undefined) ?? null;
    const data = viewData<D>(result, options.kind);
    if (data) state.data = data;
    state.refreshError = null;
    draw();
    schedule();
  };

  async function refresh(call: { name: string; args: Record<string, unknown> }): Promise<void> {
    refreshing = true;
    try {
      const result = await bridge.callTool(call.name, call.args);
      const envelope = result.structuredContent as Envelope | undefined;
      if (result.isError || !envelope || envelope.status === "failed") {
        failures += 1;
        state.refreshError = `Could not refresh: ${envelope?.error?.message ?? "the call failed"}`;
        draw();
        return;
      }
      failures = 0;
      state.polled = envelope;
      const data = viewData<D>(result, options.kind);
      if (data) state.data = data;
      state.refreshError = null;
      draw();
    } catch (err) {
      failures += 1;
      state.refreshError = `Could not refresh: ${(err as Error).message}`;
      draw();
    } finally {
      refreshing = false;
    }
  }

  function schedule(): void {
    clearTimeout(timer);
    const call = options.poll?.(state);
    if (!call || failures >= MAX_FAILURES) return;
    const delay = POLL_DELAYS[Math.min(pollIndex, POLL_DELAYS.length - 1)]!;
    pollIndex += 1;
    timer = setTimeout(async () => {
      await refresh(call);
      schedule();
    }, delay);
  }

  const bridge = new Bridge(
    { name: `social-mcp-${options.name}`, version: "1.0.0" },
    {
      input(args) {
        state.args = args;
        draw();
      },
      result: take,
      cancelled() {
        state.cancelled = true;
        draw();
      },
      context(context) {
        state.context = context;
        state.tool = context.toolInfo?.tool?.name ?? state.tool;
      },
    },
  );
  draw();
  bridge.connect().then(
    () => draw(),
    (err: Error) => {
      root.replaceChildren(
        h("p", { class: "error" }, `This view could not connect to your client: ${err.message}`),
      );
    },
  );
}

/** The approval block: what will happen, and the one button that opens the approval page. */
export function approvalBlock(
  envelope: Envelope,
  approval: ViewApproval | null,
  view: ViewHandle,
  state: Pick<ViewState<ViewData>, "context">,
): HTMLElement {
  const url = envelope.approval_url ?? "";
  const { locale, timeZone } = state.context;
  return h(
    "section",
    { class: "approval", "aria-labelledby": "approval-title" },
    h("h2", { id: "approval-title" }, "Waiting for your approval"),
    h("p", {}, approval?.summary ?? "This action runs only after you approve it in your browser."),
    approval && approval.destinations.length > 0
      ? h(
          "ul",
          { class: "destinations" },
          ...approval.destinations.map((d) => h("li", {}, `${d.name} (${d.label})`)),
        )
      : null,
    approval?.when ? h("p", { class: "muted" }, `When: ${when(approval.when, locale, timeZone)}`) : null,
    ...(approval?.settings ?? []).map((s) => h("p", { class: "muted" }, `${s.label}: ${s.value}`)),
    h(
      "p",
      {},
      h(
        "button",
        { type: "button", class: "primary", "data-approval-url": url, onclick: () => view.openLink(url) },
        "Review and approve",
      ),
    ),
    h(
      "p",
      { class: "muted" },
      approval?.expires_at
        ? `The request expires ${when(approval.expires_at, locale, timeZone)} if you do not decide.`
        : "Nothing happens until you approve it.",
    ),
  );
}

/**
 * What ends every view: the approval block when the result waits for approval, and a refresh that failed.
 */
export function footer(s: ViewState<ViewData>, view: ViewHandle): Array<HTMLElement | null> {
  return [
    s.envelope?.status === "approval_required"
      ? approvalBlock(s.envelope, s.data?.approval ?? null, view, s)
      : null,
    s.refreshError ? h("p", { class: "error", role: "status" }, s.refreshError) : null,
  ];
}

/** The failure of a call, in plain words, or null. */
export function failure(state: ViewState<ViewData>): HTMLElement | null {
  if (state.cancelled) return h("p", { class: "error" }, "The call was cancelled.");
  const e = state.envelope;
  if (e?.status === "failed" || state.result?.isError)
    return h("p", { class: "error", role: "alert" }, e?.error?.message ?? "The call failed.");
  return null;
}

/** A link opened through the host (a sandboxed view cannot open windows itself). */
export function link(view: ViewHandle, url: string, label: string): HTMLElement {
  return h(
    "a",
    {
      href: url,
      rel: "noopener noreferrer",
      onclick: (e: Event) => {
        e.preventDefault();
        view.openLink(url);
      },
    },
    label,
  );
}
