/**
 * The /media page: the user's media of one workspace and the upload form. Every value is
 * escaped (src/web/html.ts); labels and titles are inert text.
 */
import type { MediaAsset } from "../domain/media/media.ts";
import { html, page, type RawHtml } from "./html.ts";

export interface MediaPageModel {
  csrfToken: string;
  workspaceId: string;
  workspaces: Array<{ id: string; name: string }>;
  items: MediaAsset[];
  maxImageBytes: number;
  maxVideoBytes: number;
  message?: { kind: "ok" | "error"; text: string } | undefined;
}

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

function row(m: MediaAsset, workspaceId: string): RawHtml {
  const size = m.width && m.height ? `${m.width}×${m.height}` : "";
  const duration = m.duration_seconds !== null ? `${m.duration_seconds.toFixed(1)} s` : "";
  const href = `/media/${m.asset_id}/file?workspace_id=${encodeURIComponent(workspaceId)}`;
  return html`<tr><td><a href="${href}">${m.title ?? m.kind}</a></td><td>${m.kind}</td><td>${m.mime_type}</td>
<td>${mib(m.bytes)}</td><td>${size}</td><td>${duration}</td><td>${m.labels.join(", ")}</td>
<td class="muted"><code>${m.asset_id}</code></td></tr>`;
}

/** Renders the page. */
export function renderMediaPage(model: MediaPageModel): string {
  const options = model.workspaces.map(
    (w) =>
      html`<option value="${w.id}"${w.id === model.workspaceId ? html` selected` : ""}>${w.name}</option>`,
  );
  const message = model.message
    ? html`<p class="${model.message.kind === "error" ? "error" : "muted"}" role="status">${model.message.text}</p>`
    : "";
  const table =
    model.items.length === 0
      ? html`<p class="muted">No media yet.</p>`
      : html`<table><thead><tr><th>Title</th><th>Kind</th><th>Type</th><th>Size</th><th>Dimensions</th><th>Duration</th><th>Labels</th><th>Asset ID</th></tr></thead><tbody>${model.items.map((m) => row(m, model.workspaceId))}</tbody></table>`;
  const body = html`<h1>Media library</h1>
<form method="get" action="/media"><label>Workspace <select name="workspace_id">${options}</select></label><button type="submit">Show</button></form>
${message}
<h2>Upload</h2>
<form method="post" action="/media" enctype="multipart/form-data">
<input type="hidden" name="csrf_token" value="${model.csrfToken}">
<input type="hidden" name="workspace_id" value="${model.workspaceId}">
<label>Title <input type="text" name="title" maxlength="200"></label>
<label>Labels (comma separated) <input type="text" name="labels" maxlength="1000"></label>
<label>File (JPEG, PNG or WEBP up to ${mib(model.maxImageBytes)}; MP4 up to ${mib(model.maxVideoBytes)})
<input type="file" name="file" required accept="image/jpeg,image/png,image/webp,video/mp4"></label>
<button type="submit">Upload</button>
</form>
<h2>Your media</h2>
${table}
<p class="muted">Agents refer to media by asset ID; files are only served to you.</p>`;
  return page("Media library", body);
}
