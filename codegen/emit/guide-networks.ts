/**
 * The "Network rules" chapter of the developer guide: the rule table of src/providers/social/rules.ts that
 * publish_post and schedule_post check at the call (a broken rule is `validation_failed` naming the
 * destination and the rule), so an agent can prepare a post that each destination accepts.
 */
import { type NetworkRules, rulesRows } from "../../src/providers/social/rules.ts";

const size = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;

function images(r: NetworkRules): string {
  if (r.images.max === 0) return "not accepted";
  const formats = r.images.mimeTypes.map((m) => m.replace("image/", "").toUpperCase()).join("/");
  const count =
    r.images.max === 1
      ? "1"
      : r.images.carouselMin > 1
        ? `1, or ${r.images.carouselMin}–${r.images.max} in one post`
        : `1–${r.images.max}`;
  return `${count} (${formats}, ≤ ${size(r.images.maxBytes)}${r.images.sameDimensions ? ", same dimensions" : ""})`;
}

function video(r: NetworkRules): string {
  if (!r.video.allowed) return "not accepted";
  return `1, ${r.video.minSeconds}–${r.video.maxSeconds} s, ≤ ${size(r.video.maxBytes)}`;
}

function text(r: NetworkRules): string {
  const unit = { "x-weighted": " (weighted: URLs 23, emoji 2)", "utf8-bytes": " bytes", characters: "" }[
    r.caption.counting
  ];
  const parts = [`${r.caption.maxLength}${unit}${r.caption.sentAs ? ` (the ${r.caption.sentAs})` : ""}`];
  if (r.caption.maxHashtags !== undefined) parts.push(`${r.caption.maxHashtags} hashtags`);
  if (r.title)
    parts.push(
      `title ${r.title.maxLength} (${r.title.fromCaption ? "first line of title or caption" : "the post's title"})`,
    );
  return parts.join("; ");
}

function ratios(r: NetworkRules): string {
  const list = Object.values(r.aspectRatios).map((a) => `${a.label} ${a.range}`);
  return list.length > 0 ? list.join("; ") : "any";
}

function documents(r: NetworkRules): string {
  const d = r.document;
  return d ? `PDF, ≤ ${d.maxPages} pages, ≤ ${size(d.maxBytes)}` : "no";
}

function altText(r: NetworkRules): string {
  const a = r.altText;
  if (!a) return "no";
  return `\`${a.field}\`${a.maxLength === undefined ? "" : `, ≤ ${a.maxLength.toLocaleString("en-US")}`}`;
}

function needs(r: NetworkRules): string {
  if (r.requiresVideo) return "a video";
  if (r.requiresMedia) return "an image or a video";
  return "text alone is fine";
}

/** The chapter as Markdown. */
export function networkRulesChapter(): string {
  const rows = rulesRows().map(
    (r) =>
      `| ${r.label} | ${text(r)} | ${needs(r)} | ${images(r)} | ${video(r)} | ${r.mixedMedia ? "yes" : "no"} | ${ratios(r)} | ${documents(r)} | ${altText(r)} |`,
  );
  return `## Network rules

publish_post and schedule_post check every destination against these rules before anything is created; a
broken rule answers \`validation_failed\` naming the destination account, the network and the rule; nothing is
ever cut to fit. Lengths are characters (X counts its weighted length, YouTube's description bytes). A
multi-image post's count includes every item. Aspect ratios are width:height; a network without a range takes
any. TikTok destinations are never accepted by a tool: TikTok posts are finished by the user on
\`{base_url}/review\`. A LinkedIn carousel goes as a document (a PDF page per image) unless the account's
\`linkedin_carousel\` is \`images\`. Alt text is sent in the network's own field; it must fit the limit.

| network | text max | needs | images | video | images + video | aspect ratios | document | alt text |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`;
}

/**
 * generated/network-rules.md: the chapter on its own, served as the MCP resource
 * `docs://social-mcp/network-rules` (src/mcp/apps/docs.ts) so that a tool description can point at it.
 */
export function emitNetworkRules(provenance: string): string {
  return `<!-- ${provenance} -->\n\n# Social MCP: network rules\n\n${networkRulesChapter().replace(/^## Network rules\n\n/, "")}`;
}
