/**
 * Credit prices (service spec 8). Reading costs nothing; copy, hook and caption text generation reuses no
 * images and is free. Every credit-consuming tool returns `credits_charged` (service spec 2.7).
 */

/** Credits per unit of generated work. */
export const PRICES = {
  /** Each newly generated image (carousel slide, single image). */
  generated_image: 5,
  /** One 4-image 2x2 grid video. */
  grid_video: 20,
  /** One single-fade video (one image). */
  fade_video: 5,
  /** One AI UGC automation video (needs a stored CTA video). */
  ugc_video: 10,
} as const;

/** Credits for a carousel of `slides` newly generated images: 6 slides = 30. */
export function carouselPrice(slides: number): number {
  return slides * PRICES.generated_image;
}

/**
 * Credits for a carousel whose last slide is stored CTA artwork (not generated): 6 slides = 25
 * (5 generated images).
 */
export function carouselWithCtaPrice(slides: number): number {
  return Math.max(0, slides - 1) * PRICES.generated_image;
}

/** Credits for one automation video run by template id (`2x2-grid`, `single-fade`, `ugc-video`). */
export function videoPrice(templateId: "2x2-grid" | "single-fade" | "ugc-video"): number {
  switch (templateId) {
    case "2x2-grid":
      return PRICES.grid_video;
    case "single-fade":
      return PRICES.fade_video;
    case "ugc-video":
      return PRICES.ugc_video;
  }
}

/** Text generation (captions, hooks, hashtags) is free: no images are generated. */
export const TEXT_GENERATION_PRICE = 0;
