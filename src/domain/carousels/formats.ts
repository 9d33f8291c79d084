/** Carousel image formats and slide counts (service spec 2.7, 8), shared by designs, outlines and runs. */

/** Carousel image formats (service spec 2.7). */
export const CAROUSEL_FORMATS = ["square", "portrait", "story"] as const;
export type CarouselFormat = (typeof CAROUSEL_FORMATS)[number];

/** Slide counts a carousel may have (service spec 8). */
export const SLIDE_COUNTS = [4, 5, 6, 7, 8, 10] as const;
export type SlideCount = (typeof SLIDE_COUNTS)[number];

/** True for a slide count the spec allows. */
export const isSlideCount = (n: number): n is SlideCount => (SLIDE_COUNTS as readonly number[]).includes(n);
