/**
 * ui://social-mcp/post: a post (text, image, carousel or video) as each destination network will show it:
 * its media (each image's alt text under it), the caption cut where that network's limit cuts it (the rest shown struck through, with the
 * count), how the network changes the post ("LinkedIn: document, 6 pages", the document's pages shown one by
 * one), and the rules of the network's row that the post breaks; the first comment under the caption; its
 * deliveries with their state, reason, link and first comment's status. For publish_post and schedule_post it
 * shows what the approval will do and the approval button.
 * Shows get_post, create_text_post, create_image_post, publish_post, schedule_post and list_deliveries
 * results (list_deliveries without a post: the deliveries alone).
 */
import type { NetworkPreview, PostViewData, ViewDelivery, ViewMedia } from "../common/data.ts";
import { badge, h, standIn, when } from "../common/dom.ts";
import { failure, footer, link, startView, type ViewHandle, type ViewState } from "../common/view.ts";

type State = ViewState<PostViewData>;

/** The network tab the user picked (kept across refreshes). */
let chosen: string | null = null;

function mediaStrip(media: ViewMedia[], expiresAt: string, view: ViewHandle): HTMLElement | null {
  if (media.length === 0) return null;
  return h(
    "div",
    { class: "media-strip", "data-scroll-key": "media" },
    ...media.map((m, i) =>
      m.kind === "video"
        ? h("video", {
            src: `${view.src(m, expiresAt)}#t=0.1`,
            controls: true,
            playsinline: true,
            preload: "metadata",
            width: m.width ?? undefined,
            height: m.height ?? undefined,
            "aria-label": `Video ${i + 1} of ${media.length}`,
            onerror: () => view.mediaFailed(),
          })
        : h(
            "figure",
            { class: "media-item" },
            h("img", {
              src: view.src(m, expiresAt),
              alt: m.alt_text || `Image ${i + 1} of ${media.length}`,
              width: m.width ?? undefined,
              height: m.height ?? undefined,
              decoding: "async",
              onerror: () => view.mediaFailed(),
            }),
            m.alt_text ? h("figcaption", { class: "alt-text" }, `Alt text: ${m.alt_text}`) : null,
          ),
    ),
  );
}

/** The pages of the document a network makes of the images (a LinkedIn carousel), one image per page. */
function documentPages(p: NetworkPreview, media: ViewMedia[], expiresAt: string, view: ViewHandle) {
  if (!p.document_pages || media.length === 0) return null;
  const n = media.length;
  return h(
    "ol",
    { class: "document-pages", "aria-label": `${p.label} document, ${n} pages` },
    ...media.map((m, i) =>
      h(
        "li",
        { "data-page": String(i + 1) },
        h("img", {
          src: view.src(m, expiresAt),
          alt: `Page ${i + 1} of ${n}`,
          width: m.width ?? undefined,
          height: m.height ?? undefined,
          decoding: "async",
          onerror: () => view.mediaFailed(),
        }),
        h("span", { class: "page-number" }, `Page ${i + 1} / ${n}`),
      ),
    ),
  );
}

function preview(p: NetworkPreview, pages: HTMLElement | null): HTMLElement {
  const c = p.caption;
  const over = c.length - c.limit;
  const unit =
    c.counting === "x-weighted"
      ? "weighted characters"
      : c.counting === "utf8-bytes"
        ? "bytes"
        : "characters";
  return h(
    "div",
    {
      class: "network-preview",
      role: "tabpanel",
      "aria-label": `${p.label} preview`,
      "data-network": p.network,
    },
    p.format ? h("p", { class: "format" }, `${p.label}: ${p.format}`) : null,
    pages,
    h(
      "p",
      { class: "caption-text" },
      c.kept,
      c.cut ? h("del", { class: "cut", title: `${p.label} cuts the caption here` }, c.cut) : null,
    ),
    h(
      "p",
      { class: over > 0 ? "counter over" : "counter" },
      `${c.length} / ${c.limit} ${unit}`,
      over > 0 ? ` · ${p.label} cuts the last ${over}` : "",
    ),
    p.problems.length > 0
      ? h(
          "ul",
          { class: "problems", "aria-label": `${p.label} rules this post breaks` },
          ...p.problems.map((x) => h("li", {}, x)),
        )
      : h("p", { class: "ok" }, `Fits ${p.label}'s rules.`),
  );
}

function networks(
  list: NetworkPreview[],
  redraw: () => void,
  pages: (p: NetworkPreview) => HTMLElement | null,
): HTMLElement | null {
  if (list.length === 0) return null;
  const current = list.find((n) => n.network === chosen) ?? list[0]!;
  return h(
    "section",
    { class: "networks", "aria-label": "As each network shows it" },
    h(
      "div",
      { role: "tablist", class: "tabs" },
      ...list.map((n) =>
        h(
          "button",
          {
            type: "button",
            role: "tab",
            "aria-selected": String(n === current),
            "data-network": n.network,
            class: n.problems.length > 0 || n.caption.cut ? "warn" : undefined,
            onclick: () => {
              chosen = n.network;
              redraw();
            },
          },
          n.label,
        ),
      ),
    ),
    preview(current, pages(current)),
  );
}

function deliveries(list: ViewDelivery[], view: ViewHandle, s: State): HTMLElement | null {
  if (list.length === 0) return null;
  const { locale, timeZone } = s.context;
  return h(
    "section",
    { class: "deliveries", "aria-labelledby": "deliveries-title" },
    h("h2", { id: "deliveries-title" }, "Deliveries"),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Network"),
          h("th", { scope: "col" }, "State"),
          h("th", { scope: "col" }, "Post"),
        ),
      ),
      h(
        "tbody",
        {},
        ...list.map((d) =>
          h(
            "tr",
            { "data-delivery": d.delivery_id },
            h("td", {}, d.label ?? d.network),
            h(
              "td",
              {},
              badge(d.status),
              d.reason ? h("p", { class: "reason" }, d.reason) : null,
              d.first_comment ? h("p", { class: "reason" }, `first comment: ${d.first_comment}`) : null,
            ),
            h(
              "td",
              {},
              d.post_url
                ? link(view, d.post_url, "Open post")
                : d.scheduled_for
                  ? `scheduled ${when(d.scheduled_for, locale, timeZone)}`
                  : "—",
            ),
          ),
        ),
      ),
    ),
  );
}

/** The deliveries to list: the post's (view data), else those of a list_deliveries result. */
function deliveriesOf(s: State): ViewDelivery[] {
  if (s.data?.post) return s.data.post.deliveries;
  const items = (s.polled ?? s.envelope)?.data?.items;
  return Array.isArray(items) ? items : [];
}

function render(s: State, view: ViewHandle): Node[] {
  const d = s.data;
  const post = d?.post ?? null;
  const fallback = !post ? ((s.polled ?? s.envelope)?.data as Record<string, any> | undefined) : undefined;
  const type = post?.type ?? fallback?.type;
  const status = post?.status ?? fallback?.status;
  const title = post?.title ?? fallback?.title;
  const caption = post?.caption ?? fallback?.caption;
  return [
    h(
      "header",
      {},
      h("h1", {}, title ?? (type ? `${type[0]!.toUpperCase()}${type.slice(1)} post` : "Deliveries")),
      type || status
        ? h(
            "p",
            { class: "meta" },
            type ? `${type} post ` : "",
            status ? badge(status) : null,
            standIn(post?.media_provider, "media: local stand-in"),
            standIn(post?.caption_provider, "caption: local stand-in"),
          )
        : null,
    ),
    failure(s),
    post ? mediaStrip(post.media, d!.media_expires_at, view) : null,
    d && d.networks.length > 0
      ? networks(
          d.networks,
          () => view.redraw(),
          (p) => documentPages(p, post?.media ?? [], d.media_expires_at, view),
        )
      : caption
        ? h(
            "section",
            { class: "caption" },
            h("h2", {}, "Caption"),
            h("p", { class: "caption-text" }, caption),
          )
        : null,
    post?.first_comment
      ? h(
          "section",
          { class: "first-comment", "aria-labelledby": "first-comment-title" },
          h("h2", { id: "first-comment-title" }, "First comment"),
          h("p", { class: "caption-text" }, post.first_comment),
        )
      : null,
    deliveries(deliveriesOf(s), view, s),
    ...footer(s, view),
  ].filter((n): n is HTMLElement => n !== null);
}

const MOVING = new Set(["pending", "uploading", "processing"]);

startView<PostViewData>({
  name: "post",
  kind: "post",
  render,
  poll(s) {
    const post = s.data?.post;
    if (!post?.deliveries.some((x) => MOVING.has(x.status))) return null;
    return { name: "list_deliveries", args: { post_id: post.post_id } };
  },
  refresh(s) {
    const postId = s.data?.post?.post_id ?? (s.args.post_id as string | undefined);
    return postId ? { name: "get_post", args: { post_id: postId } } : null;
  },
});
