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

function needs(r: NetworkRules): string {
  if (r.requiresVideo) return "a video";
  if (r.requiresMedia) return "an image or a video";
  return "text alone is fine";
}

/** The chapter as Markdown. */
export function networkRulesChapter(): string {
  const rows = rulesRows().map(
    (r) =>
      `| ${r.label} | ${r.caption.maxLength}${r.caption.counting === "x-weighted" ? " (weighted: URLs 23, emoji 2)" : ""} | ${needs(r)} | ${images(r)} | ${video(r)} | ${r.mixedMedia ? "yes" : "no"} |`,
  );
  return `## Network rules

publish_post and schedule_post check every destination against these rules before anything is created; a
broken rule answers \`validation_failed\` naming the destination account, the network and the rule. Lengths
are characters (X counts its weighted length). A multi-image post's count includes every item.
TikTok destinations are never accepted by a tool: TikTok posts are finished by the user on \`{base_url}/review\`.

| network | caption max | needs | images | video | images + video |
| --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`;
}
