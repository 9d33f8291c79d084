/**
 * The /media page: the user's media of one workspace and the upload form. Every value is
 * escaped (src/web/html.ts); labels and titles are inert text. Each asset shows its alt text in a small
 * form that changes or clears it (POST /media/alt-text, src/web/media.ts).
 */
import { ALT_TEXT_MAX_LENGTH } from "../domain/media/alt-text.ts";
import type { MediaAsset } from "../domain/media/media.ts";
import { MEDIA_LIMITS } from "../providers/media-limits.ts";
import { html, page, type RawHtml, type StackRow, stackTable } from "./html.ts";

export interface MediaPageModel {
  csrfToken: string;
  workspaceId: string;
  workspaces: Array<{ id: string; name: string }>;
  items: MediaAsset[];
  /** The workspace's products and their current CTA artwork (for the "CTA artwork" form). */
  products?: Array<{ id: string; name: string; cta_asset_id: string | null }> | undefined;
  maxImageBytes: number;
  maxVideoBytes: number;
  message?: { kind: "ok" | "error"; text: string } | undefined;
}

/** A size in bytes as people read it: 812 bytes, 41.3 KiB, 19.5 MiB. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const kib = bytes / 1024;
  if (kib < 1024) return `${Math.round(kib * 10) / 10} KiB`;
  return `${Math.round((kib / 1024) * 10) / 10} MiB`;
}

const MEDIA_HEADERS = [
  "Preview",
  "Title",
  "Kind",
  "Size",
  "Dimensions",
  "Duration",
  "Labels",
  "Alt text",
  "Asset ID",
];

/** The form that changes or clears (empty field) an asset's alt text; the field shows the current one. */
function altForm(m: MediaAsset, model: Pick<MediaPageModel, "csrfToken" | "workspaceId">): RawHtml {
  const what = m.kind === "image" ? "alt text" : "description";
  return html`<form method="post" action="/media/alt-text" class="alt-text">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<input type="hidden" name="asset_id" value="${m.asset_id}">
<label><span class="visually-hidden">The ${what} of ${m.title ?? m.kind}</span><textarea name="alt_text" rows="2" maxlength="${ALT_TEXT_MAX_LENGTH}">${m.alt_text ?? ""}</textarea></label>
<button type="submit">Save</button>
</form>`;
}

function row(m: MediaAsset, model: Pick<MediaPageModel, "csrfToken" | "workspaceId">): StackRow {
  const { workspaceId } = model;
  const size = m.width && m.height ? `${m.width}×${m.height}` : "";
  const duration = m.duration_seconds !== null ? `${m.duration_seconds.toFixed(1)} s` : "";
  const href = `/media/${m.asset_id}/file?workspace_id=${encodeURIComponent(workspaceId)}`;
  const preview =
    m.kind === "image"
      ? html`<img class="thumb" src="${href}" alt="" width="96" height="96">`
      : html`<span class="thumb text" aria-hidden="true">▶</span>`;
  return [
    preview,
    html`<a href="${href}">${m.title ?? m.kind}</a>`,
    html`${m.kind} <span class="muted">(${m.mime_type})</span>`,
    html`<span class="nowrap">${byteSize(m.bytes)}</span>`,
    html`${size}`,
    html`${duration}`,
    html`${m.labels.join(", ")}`,
    altForm(m, model),
    html`<code class="id">${m.asset_id}</code>`,
  ];
}

/** The form that marks an uploaded image as a product's stored CTA artwork (the last carousel slide). */
function ctaForm(model: MediaPageModel): RawHtml | string {
  const images = model.items.filter((m) => m.kind === "image");
  const products = model.products ?? [];
  if (images.length === 0 || products.length === 0) return "";
  const titleOf = (id: string | null) => images.find((m) => m.asset_id === id)?.title ?? id;
  return html`<h2>CTA artwork</h2>
<p class="muted">The image is cover-fitted as the last slide of carousels generated with stored CTA artwork.</p>
<ul>${products.map((p) => html`<li>${p.name}: ${p.cta_asset_id ? titleOf(p.cta_asset_id) : html`<span class="muted">none</span>`}</li>`)}</ul>
<form method="post" action="/media/cta-artwork" id="cta-artwork" class="narrow">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<label>Product <select name="product_id">${products.map((p) => html`<option value="${p.id}">${p.name}</option>`)}</select></label>
<label>Image <select name="asset_id">${images.map((m) => html`<option value="${m.asset_id}">${m.title ?? m.asset_id}</option>`)}</select></label>
<button type="submit">Use as CTA artwork</button>
</form>`;
}

/** Renders the page. */
export function renderMediaPage(model: MediaPageModel): string {
  const options = model.workspaces.map(
    (w) =>
      html`<option value="${w.id}"${w.id === model.workspaceId ? html` selected` : ""}>${w.name}</option>`,
  );
  const message = model.message
    ? html`<p class="${model.message.kind === "error" ? "error" : "ok"}" role="status">${model.message.text}</p>`
    : "";
  const table =
    model.items.length === 0
      ? html`<p class="muted">No media yet.</p>`
      : stackTable(
          MEDIA_HEADERS,
          model.items.map((m) => row(m, model)),
          { id: "media" },
        );
  const body = html`<h1>Media library</h1>
<form method="get" action="/media" class="filters"><label>Workspace <select name="workspace_id">${options}</select></label><button type="submit">Show</button></form>
${message}
<h2>Upload</h2>
<form method="post" action="/media" enctype="multipart/form-data" class="narrow">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<label>Title <input type="text" name="title" maxlength="200"></label>
<label>Labels (comma separated) <input type="text" name="labels" maxlength="1000"></label>
<label>Alt text (optional: what the image shows, or what happens in the video, for people who cannot see it; at most ${ALT_TEXT_MAX_LENGTH.toLocaleString("en-US")} characters) <textarea name="alt_text" rows="3" maxlength="${ALT_TEXT_MAX_LENGTH}"></textarea></label>
<label>File (JPEG, PNG or WEBP up to ${byteSize(model.maxImageBytes)}, ${MEDIA_LIMITS.imageMaxSide} pixels a side and ${MEDIA_LIMITS.imageMaxPixels / 1_000_000} megapixels; MP4 up to ${byteSize(model.maxVideoBytes)}, ${MEDIA_LIMITS.videoMaxSide} pixels a side and ${MEDIA_LIMITS.videoMaxSeconds} seconds)
<input type="file" name="file" required accept="image/jpeg,image/png,image/webp,video/mp4"></label>
<label><input type="checkbox" name="purpose" value="cta"> A CTA clip for AI UGC videos (an MP4 of ${MEDIA_LIMITS.ctaSeconds.min} to ${MEDIA_LIMITS.ctaSeconds.max} seconds)</label>
<button type="submit">Upload</button>
</form>
<h2>Your media</h2>
${table}
${ctaForm(model)}
<p class="muted">Agents refer to media by asset ID; files are only served to you. An asset's alt text goes out with it wherever the network takes one, unless the post gives its own; an empty field clears it.</p>`;
  return page("Media library", body, { current: "/media" });
}
