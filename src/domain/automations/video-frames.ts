/**
 * Which of the product's own photos a video automation shows (docs/slides.md "Videos"), before any generated
 * image fills the rest: the single fade and the AI UGC hook use the product's first photo; the 2x2 grid uses
 * up to four of its photos, and a product with only one photo gets it whole and as a close-up (the video
 * provider's `zooms`), generated images taking the remaining tiles.
 */
import { TEMPLATE_IMAGES, type VideoTemplate } from "../../providers/video/types.ts";

/** Zoom of the close-up tile of a product's only photo (its middle 1/1.8 of each side). */
export const CLOSE_UP_ZOOM = 1.8;

/** The own frames of `template` from the product's `photos` (first first), with each frame's zoom. */
export function ownFrames(template: VideoTemplate, photos: Buffer[]): { images: Buffer[]; zooms: number[] } {
  const [first] = photos;
  if (!first) return { images: [], zooms: [] };
  if (template !== "2x2-grid") return { images: [first], zooms: [1] };
  if (photos.length === 1) return { images: [first, first], zooms: [1, CLOSE_UP_ZOOM] };
  const images = photos.slice(0, TEMPLATE_IMAGES[template]);
  return { images, zooms: images.map(() => 1) };
}
