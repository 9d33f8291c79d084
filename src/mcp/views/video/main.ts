/**
 * ui://social-mcp/video: an automation run: its video in a player at its real aspect ratio with duration and
 * template, the run's state and credits, and the posts it produced with their deliveries; for run_automation
 * the approval block (what the run will do). While a run is queued or running it refreshes through
 * get_automation_run at the polling pace. Shows run_automation and get_automation_run results.
 */
import type { VideoViewData, ViewPost } from "../common/data.ts";
import { badge, credits, duration, h, standIn, when } from "../common/dom.ts";
import { failure, footer, link, startView, type ViewHandle, type ViewState } from "../common/view.ts";

type State = ViewState<VideoViewData>;

const WORKING = new Set(["queued", "running"]);

/** The run as the view draws it: the view data's, else get_automation_run's own result. */
function runOf(s: State): Record<string, any> | null {
  if (s.data?.run) return s.data.run;
  const data = (s.polled ?? s.envelope)?.data;
  return data && typeof data.run_id === "string" ? data : null;
}

function producedPost(p: ViewPost, view: ViewHandle): HTMLElement {
  return h(
    "li",
    { "data-post": p.post_id },
    h("p", {}, `${p.type} post `, badge(p.status)),
    p.caption ? h("p", { class: "caption-text excerpt" }, p.caption) : null,
    p.deliveries.length > 0
      ? h(
          "ul",
          { class: "inline" },
          ...p.deliveries.map((d) =>
            h(
              "li",
              {},
              `${d.network} `,
              badge(d.status),
              d.post_url ? " " : null,
              d.post_url ? link(view, d.post_url, "Open") : null,
            ),
          ),
        )
      : null,
  );
}

function render(s: State, view: ViewHandle): Node[] {
  const d = s.data;
  const run = runOf(s);
  const { locale, timeZone } = s.context;
  const v = d?.video ?? null;
  const template = d?.automation?.template_id ?? null;
  return [
    h(
      "header",
      {},
      h("h1", {}, d?.automation?.name ?? "Automation run"),
      h(
        "p",
        { class: "meta" },
        d?.automation ? `${d.automation.kind} automation` : "",
        template ? ` · template ${template}` : "",
        run ? " · " : "",
        run ? badge(run.status) : null,
      ),
      run
        ? h(
            "p",
            { class: "credits" },
            `${credits(run.credits_charged)} charged · ${run.trigger} run · started ${when(run.created_at, locale, timeZone)}`,
          )
        : null,
    ),
    failure(s),
    v
      ? h(
          "figure",
          {
            class: "video",
            style: v.width && v.height ? `aspect-ratio: ${v.width} / ${v.height}` : undefined,
          },
          h("video", {
            // `#t=0.1`: the player shows the first frame instead of a black box (media fragments).
            src: `${view.src(v, d!.media_expires_at)}#t=0.1`,
            controls: true,
            playsinline: true,
            preload: "metadata",
            width: v.width ?? undefined,
            height: v.height ?? undefined,
            "aria-label": "The run's video",
            onerror: () => view.mediaFailed(),
          }),
          h(
            "figcaption",
            {},
            v.duration_seconds !== null ? `${duration(v.duration_seconds)} · ` : "",
            v.width && v.height ? `${v.width}×${v.height}` : "",
            template ? ` · ${template}` : "",
            standIn(d?.video_provider),
          ),
        )
      : run && WORKING.has(run.status)
        ? h(
            "p",
            { class: "muted" },
            h("span", { class: "spinner", "aria-hidden": "true" }),
            "The video is being made…",
          )
        : null,
    run?.error ? h("p", { class: "error" }, run.error) : null,
    d && d.posts.length > 0
      ? h(
          "section",
          { "aria-labelledby": "posts-title" },
          h("h2", { id: "posts-title" }, "Posts it produced"),
          h("ul", { class: "posts" }, ...d.posts.map((p) => producedPost(p, view))),
        )
      : null,
    ...footer(s, view),
  ].filter((n): n is HTMLElement => n !== null);
}

function runCall(s: State): { name: string; args: Record<string, unknown> } | null {
  const run = runOf(s);
  return run ? { name: "get_automation_run", args: { kind: run.kind, run_id: run.run_id } } : null;
}

startView<VideoViewData>({
  name: "video",
  kind: "video",
  render,
  poll(s) {
    const run = runOf(s);
    return run && WORKING.has(run.status) ? runCall(s) : null;
  },
  refresh: runCall,
});
