/**
 * ui://social-mcp/carousel: the slides of a carousel as a swipeable row at their real aspect ratio (the
 * format's pixel size), numbered, each with its state while it renders; the caption; the credits charged;
 * and, for approve_carousel, the approval block. While a run is queued or running it refreshes through
 * get_carousel at the polling pace. Shows generate_carousel, get_carousel and approve_carousel results.
 */
import type { CarouselViewData } from "../common/data.ts";
import { badge, credits, h, standIn } from "../common/dom.ts";
import {
  type Envelope,
  failure,
  footer,
  startView,
  type ViewHandle,
  type ViewState,
} from "../common/view.ts";

type State = ViewState<CarouselViewData>;

/** A slide as the view draws it (from the view data, or from get_carousel's own result without images). */
interface Slide {
  position: number;
  status: string;
  headline: string | null;
  body: string | null;
  image: CarouselViewData["slides"][number]["image"];
  error: string | null;
  /** Who made it (`local`: the offline stand-in). */
  provider?: string | null;
}

const WORKING = new Set(["queued", "running"]);
const RENDERING = new Set(["pending", "generating"]);

const postIdOf = (s: State): string | undefined =>
  s.data?.post_id ?? s.envelope?.data?.post_id ?? (s.args.post_id as string | undefined);

/** The slides to draw: the view data's, else those of a get_carousel result. */
function slidesOf(s: State): Slide[] {
  if (s.data) return s.data.slides;
  const envelope: Envelope | null = s.polled ?? s.envelope;
  const slides = envelope?.data?.slides;
  return Array.isArray(slides) ? slides.map((x: any) => ({ ...x, image: null, error: null })) : [];
}

function running(s: State): boolean {
  if (s.data) return WORKING.has(s.data.run.status) || s.data.slides.some((x) => RENDERING.has(x.status));
  const envelope = s.polled ?? s.envelope;
  const run = envelope?.data?.run?.status as string | undefined;
  if (run) return WORKING.has(run) || slidesOf(s).some((x) => RENDERING.has(x.status));
  return envelope?.status === "queued";
}

const STATE_TEXT: Record<string, string> = {
  pending: "Waiting to render",
  generating: "Rendering…",
  failed: "Failed",
  ready: "Ready",
};

function slideFigure(slide: Slide, count: number, s: State, view: ViewHandle): HTMLElement {
  const d = s.data;
  const ratio = d ? `${d.width} / ${d.height}` : "1 / 1";
  const label = `Slide ${slide.position} of ${count}`;
  const inner = slide.image
    ? h("img", {
        src: view.src(slide.image, d!.media_expires_at),
        alt: `${label}${slide.headline ? `: ${slide.headline}` : ""}`,
        width: d!.width,
        height: d!.height,
        decoding: "async",
        onerror: () => view.mediaFailed(),
      })
    : h(
        "div",
        { class: "placeholder" },
        h(
          "p",
          { class: "slide-state" },
          RENDERING.has(slide.status) ? h("span", { class: "spinner", "aria-hidden": "true" }) : null,
          STATE_TEXT[slide.status] ?? slide.status,
        ),
        slide.headline ? h("p", { class: "headline" }, slide.headline) : null,
        slide.body ? h("p", { class: "body" }, slide.body) : null,
        slide.error ? h("p", { class: "error" }, slide.error) : null,
      );
  return h(
    "figure",
    {
      class: `slide state-${slide.status}`,
      role: "group",
      "aria-roledescription": "slide",
      "aria-label": `${label}, ${STATE_TEXT[slide.status] ?? slide.status}`,
      "data-position": slide.position,
      "data-status": slide.status,
    },
    h("div", { class: "frame", style: `aspect-ratio: ${ratio}` }, inner),
    h(
      "figcaption",
      {},
      h("span", { class: "number" }, `${slide.position}/${count}`),
      standIn(slide.provider),
    ),
  );
}

/** Scrolls the track by one slide (buttons and arrow keys). */
function step(track: HTMLElement, direction: 1 | -1): void {
  const slide = track.querySelector<HTMLElement>(".slide");
  const gap = Number.parseFloat(getComputedStyle(track).columnGap) || 0;
  track.scrollBy({ left: direction * ((slide?.offsetWidth ?? track.clientWidth) + gap), behavior: "smooth" });
}

function render(s: State, view: ViewHandle): Node[] {
  const d = s.data;
  const slides = slidesOf(s);
  const charged = s.envelope?.credits_charged ?? d?.run.credits_charged;
  const status = d?.run.status ?? (s.polled ?? s.envelope)?.data?.run?.status ?? s.envelope?.status;
  const track = h(
    "div",
    {
      class: "track",
      tabindex: 0,
      "data-scroll-key": "slides",
      "aria-label": "Slides (swipe or use the arrow keys)",
      onkeydown: (e: Event) => {
        const key = (e as KeyboardEvent).key;
        if (key === "ArrowRight" || key === "ArrowLeft") {
          e.preventDefault();
          step(track, key === "ArrowRight" ? 1 : -1);
        }
      },
    },
    ...slides.map((x) => slideFigure(x, slides.length, s, view)),
  );
  const ready = slides.filter((x) => x.status === "ready").length;
  return [
    h(
      "header",
      {},
      h("h1", {}, "Carousel"),
      h(
        "p",
        { class: "meta" },
        d ? `${d.design_id} · ${d.format} ${d.width}×${d.height} · ` : "",
        `${ready} of ${slides.length} slides ready `,
        status ? badge(status) : null,
      ),
      charged !== undefined ? h("p", { class: "credits" }, `${credits(charged)} charged`) : null,
    ),
    failure(s),
    slides.length > 0
      ? h(
          "section",
          { class: "carousel", "aria-roledescription": "carousel", "aria-label": "Carousel slides" },
          track,
          h(
            "div",
            { class: "controls" },
            h(
              "button",
              { type: "button", "aria-label": "Previous slide", onclick: () => step(track, -1) },
              "‹",
            ),
            h("button", { type: "button", "aria-label": "Next slide", onclick: () => step(track, 1) }, "›"),
          ),
        )
      : s.envelope && !failure(s)
        ? h("p", { class: "muted" }, "The carousel is being prepared…")
        : null,
    d?.run.error ? h("p", { class: "error" }, d.run.error) : null,
    d
      ? h(
          "section",
          { class: "caption", "aria-labelledby": "caption-title" },
          h("h2", { id: "caption-title" }, "Caption", standIn(d.caption_provider)),
          d.caption
            ? h("p", { class: "caption-text" }, d.caption)
            : h("p", { class: "muted" }, "No caption yet."),
        )
      : null,
    ...footer(s, view),
  ].filter((n): n is HTMLElement => n !== null);
}

startView<CarouselViewData>({
  name: "carousel",
  kind: "carousel",
  render,
  poll(s) {
    const postId = postIdOf(s);
    return postId && running(s) ? { name: "get_carousel", args: { post_id: postId } } : null;
  },
  refresh(s) {
    const postId = postIdOf(s);
    return postId ? { name: "get_carousel", args: { post_id: postId } } : null;
  },
});
