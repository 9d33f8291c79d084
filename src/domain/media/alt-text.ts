/**
 * Alt text of images and descriptions of videos (WCAG 2.2 success criterion 1.1.1, non-text content): what a
 * screen reader says in place of the picture or the video. A generated slide's is written from its own words; an image post's may be given with
 * `create_image_post` (`alt_texts`, aligned with `media_asset_ids`) or set on the asset in the media library.
 * Each network takes it in its own field within its own limit (src/providers/social/rules.ts `altText`).
 */
import { ToolError } from "../../errors.ts";

/**
 * The most characters (Unicode code points) an alt text may have here: X's and Instagram's limit (1,000,
 * rules.ts), which every network with alt text takes except Pinterest (500, checked per destination).
 */
export const ALT_TEXT_MAX_LENGTH = 1000;

/**
 * The alt text of a generated slide from its own words: "Headline. Body (slide 2 of 6)"; the body is left out
 * when absent, and the words are shortened (on a word, with "…") so the whole fits `ALT_TEXT_MAX_LENGTH`.
 */
export function slideAltText(slide: {
  headline: string;
  body?: string | null | undefined;
  position: number;
  total: number;
}): string {
  const where = ` (slide ${slide.position} of ${slide.total})`;
  const headline = slide.headline.trim().replace(/\s+/g, " ");
  const body = (slide.body ?? "").trim().replace(/\s+/g, " ");
  const words = body ? `${headline}${/[.!?…]$/.test(headline) ? "" : "."} ${body}` : headline;
  const room = ALT_TEXT_MAX_LENGTH - where.length;
  const chars = [...words];
  if (chars.length <= room) return `${words}${where}`;
  const cut = chars.slice(0, room - 1).join("");
  const atWord = cut.replace(/\s+\S*$/, "");
  return `${atWord || cut}…${where}`;
}

/**
 * Checks `altTexts` given with `count` media items: at most one per item, each trimmed non-empty text (or
 * null: the asset's own) of at most `ALT_TEXT_MAX_LENGTH` characters.
 * @returns the alt texts, trimmed, as long as the media list (null where none was given).
 * @throws ToolError validation_failed at `/alt_texts` (too many) or `/alt_texts/{i}` (too long, empty).
 */
export function checkAltTexts(
  altTexts: ReadonlyArray<string | null> | undefined,
  count: number,
): Array<string | null> {
  const list = altTexts ?? [];
  if (list.length > count)
    throw new ToolError(
      "validation_failed",
      `alt_texts has ${list.length} items but media_asset_ids has ${count}: give at most one alt text per media asset, in the same order`,
      { path: "/alt_texts" },
    );
  return Array.from({ length: count }, (_, i) => {
    const text = list[i];
    if (text === null || text === undefined) return null;
    const trimmed = text.trim();
    if (trimmed === "")
      throw new ToolError("validation_failed", `alt_texts/${i} is empty: give a description or null`, {
        path: `/alt_texts/${i}`,
      });
    const length = [...trimmed].length;
    if (length > ALT_TEXT_MAX_LENGTH)
      throw new ToolError(
        "validation_failed",
        `alt_texts/${i} has ${length} characters; an alt text may have at most ${ALT_TEXT_MAX_LENGTH}`,
        { path: `/alt_texts/${i}` },
      );
    return trimmed;
  });
}

/** The templates of generated videos (src/providers/video/types.ts `VideoTemplate`). */
type GeneratedVideoTemplate = "ugc-video" | "2x2-grid" | "single-fade";

/**
 * The description of a generated video from what it shows: its template's pictures, the product's name and
 * the hook on screen, e.g. “Four photos of Glow Serum in a 2×2 grid, with the words “Brighter skin in 14
 * days” on screen.”; shortened (on a word, with "…") to `ALT_TEXT_MAX_LENGTH` characters.
 */
export function generatedVideoDescription(video: {
  template: GeneratedVideoTemplate;
  productName: string;
  hook: string;
}): string {
  const name = video.productName.trim().replace(/\s+/g, " ");
  const hook = video.hook.trim().replace(/\s+/g, " ");
  const shows =
    video.template === "2x2-grid"
      ? `Four photos of ${name} in a 2×2 grid`
      : video.template === "single-fade"
        ? `Photos of ${name} fading one into the next`
        : `A person presenting ${name}, then the brand's closing clip`;
  const text = `${shows}, with the words “${hook}” on screen.`;
  const chars = [...text];
  if (chars.length <= ALT_TEXT_MAX_LENGTH) return text;
  const cut = chars.slice(0, ALT_TEXT_MAX_LENGTH - 1).join("");
  return `${cut.replace(/\s+\S*$/, "") || cut}…`;
}
