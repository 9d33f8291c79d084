/**
 * The sizes each image model family accepts, in one place (OpenAI Images API reference, "Create image",
 * `size`; checked 2026-11-25, docs/providers.md "Provider facts"), and the size to ask for a slide:
 * - gpt-image-1 family (`gpt-image-1`, `gpt-image-1-mini`, `gpt-image-1.5` and their dated snapshots):
 *   `1024x1024`, `1536x1024`, `1024x1536` (or `auto`);
 * - `gpt-image-2`: `auto` or any `WxH` with both edges multiples of 16, the long edge at most 3840,
 *   long/short at most 3, and 655,360 to 8,294,400 pixels;
 * - `dall-e-3`: `1024x1024`, `1792x1024`, `1024x1792`; `dall-e-2`: `256x256`, `512x512`, `1024x1024`.
 * The adapter asks for the size of the nearest aspect (fixed tables) or the nearest valid size of the
 * slide's own aspect (gpt-image-2: 1088x1360 for a 1080x1350 slide) and cover-fits the answer to the
 * slide. Models of other gateways get the slide's own `WxH` unless `AI_IMAGE_SIZE` says otherwise.
 * `response_format` is a dall-e parameter: gpt-image models refuse it and always answer base64.
 */

/** A model family's size rule. */
export interface SizeFamily {
  id: "gpt-image-1" | "gpt-image-2" | "dall-e-3" | "dall-e-2" | "other";
  /** The fixed sizes it takes ("WxH"), or undefined for a rule (gpt-image-2) or an unknown gateway model. */
  sizes: readonly string[] | undefined;
  /** True when the model takes `response_format` (dall-e): we ask for `b64_json`. */
  responseFormat: boolean;
}

/** gpt-image-2's size rule. */
export const GPT_IMAGE_2 = {
  multiple: 16,
  maxEdge: 3840,
  maxRatio: 3,
  minPixels: 655_360,
  maxPixels: 8_294_400,
} as const;

/** The family of `model` (by OpenAI's model ids; anything else is `other`). */
export function sizeFamily(model: string): SizeFamily {
  const m = model.toLowerCase();
  if (/^gpt-image-1(?:$|[-.])/.test(m))
    return { id: "gpt-image-1", sizes: ["1024x1024", "1536x1024", "1024x1536"], responseFormat: false };
  if (/^gpt-image-2(?:$|-)/.test(m)) return { id: "gpt-image-2", sizes: undefined, responseFormat: false };
  if (/^dall-e-3(?:$|-)/.test(m))
    return { id: "dall-e-3", sizes: ["1024x1024", "1792x1024", "1024x1792"], responseFormat: true };
  if (/^dall-e-2(?:$|-)/.test(m))
    return { id: "dall-e-2", sizes: ["256x256", "512x512", "1024x1024"], responseFormat: true };
  return { id: "other", sizes: undefined, responseFormat: false };
}

const parse = (size: string) => size.split("x").map(Number) as [number, number];
/** Distance between two aspect ratios (width / height), symmetric in log space. */
const aspectDistance = (a: number, b: number) => Math.abs(Math.log(a / b));

/** True when `w` x `h` is a size gpt-image-2 accepts. */
export function validGptImage2(w: number, h: number): boolean {
  const r = GPT_IMAGE_2;
  const long = Math.max(w, h);
  const short = Math.min(w, h);
  return (
    w % r.multiple === 0 &&
    h % r.multiple === 0 &&
    long <= r.maxEdge &&
    long <= r.maxRatio * short &&
    w * h >= r.minPixels &&
    w * h <= r.maxPixels
  );
}

/**
 * The gpt-image-2 size nearest to `width` x `height`: edges multiples of 16 within a quarter of the slide's
 * width either way (the slide scaled into the pixel range first), scored by aspect distance first and
 * closeness to the slide's size second (1080x1350 -> 1088x1360, 1080x1080 -> 1088x1088, 1080x1920 ->
 * 1088x1936). Aspects beyond 3:1 are clamped to 3:1.
 */
export function nearestGptImage2(width: number, height: number): string {
  const r = GPT_IMAGE_2;
  const aspect = Math.min(r.maxRatio, Math.max(1 / r.maxRatio, width / height));
  const pixels = width * height;
  const scale = Math.sqrt(Math.min(r.maxPixels, Math.max(r.minPixels, pixels)) / pixels);
  const target = width * scale;
  let best: { w: number; h: number; score: number } | undefined;
  const from = Math.max(r.multiple, Math.floor((target * 0.75) / r.multiple) * r.multiple);
  for (let w = from; w <= Math.min(r.maxEdge, target * 1.25 + r.multiple); w += r.multiple) {
    const h = Math.max(r.multiple, Math.round(w / aspect / r.multiple) * r.multiple);
    if (!validGptImage2(w, h)) continue;
    const score = aspectDistance(w / h, aspect) + 0.1 * Math.abs(Math.log(w / target));
    if (!best || score < best.score) best = { w, h, score };
  }
  return best ? `${best.w}x${best.h}` : "auto";
}

/** The listed size whose aspect is nearest to `width` / `height` (the larger one on a tie). */
export function nearestListed(sizes: readonly string[], width: number, height: number): string {
  const aspect = width / height;
  return [...sizes].sort((a, b) => {
    const [aw, ah] = parse(a);
    const [bw, bh] = parse(b);
    return aspectDistance(aw / ah, aspect) - aspectDistance(bw / bh, aspect) || bw * bh - aw * ah;
  })[0]!;
}

/**
 * The `size` to send for a `width` x `height` slide to `model`: `override` (AI_IMAGE_SIZE) when set, else the
 * family's nearest size (see the module comment).
 */
export function requestSize(model: string, width: number, height: number, override?: string): string {
  if (override) return override;
  const family = sizeFamily(model);
  if (family.sizes) return nearestListed(family.sizes, width, height);
  if (family.id === "gpt-image-2") return nearestGptImage2(width, height);
  return `${width}x${height}`;
}
