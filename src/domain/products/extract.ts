/**
 * Product details from one HTML page: schema.org Product JSON-LD (also inside `@graph`, with
 * `offers` as an Offer, AggregateOffer or a list), then Open Graph (`og:*`, `product:price:*`), then plain
 * meta tags (`<title>`, `meta name=description`). Parsed with cheerio (htmlparser2), with the work per page capped; the page text is untrusted data: it is
 * only copied into bounded string fields, never interpreted (service spec 5.14).
 */
import type * as Cheerio from "cheerio";
import { lazyRequire } from "../../lazy-require.ts";

/** cheerio, loaded on the first product page parsed. */
const cheerio = lazyRequire<typeof Cheerio>("cheerio");

/** What the analysis found. Absent fields were not on the page. */
export interface ProductDetails {
  title?: string;
  description?: string;
  /** Major units, e.g. 19.99. */
  price?: number;
  /** ISO 4217, upper case. */
  currency?: string;
  brand?: string;
  /** Absolute http(s) image URLs (at most 10); never downloaded. */
  image_urls: string[];
  /** Which sources contributed, in precedence order. */
  sources: Array<"json_ld" | "open_graph" | "meta">;
}

const MAX_TITLE = 300;
const MAX_DESCRIPTION = 5000;
const MAX_BRAND = 200;
const MAX_IMAGES = 20;
const MAX_URL = 2048;
/** Work caps per page (service spec 5.14: page text is untrusted): characters of HTML parsed at most, */
const MAX_HTML_CHARS = 2 * 1024 * 1024;
/** JSON-LD blocks read at most, */
const MAX_JSON_LD_BLOCKS = 20;
/** characters of one JSON-LD block parsed at most, */
const MAX_JSON_LD_CHARS = 256 * 1024;
/** image candidates considered at most, and characters of a price text read at most. */
const MAX_IMAGE_CANDIDATES = 200;
const MAX_PRICE_TEXT = 64;

type Json = unknown;

function text(v: Json, max: number): string | undefined {
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const s = String(v).replace(/\s+/g, " ").trim();
  return s ? s.slice(0, max) : undefined;
}

/**
 * Reads a price from JSON-LD or a meta tag: a finite number >= 0, or a string holding one amount with
 * optional currency text around it ("$12.50", "12,50 EUR", "1 299,00"). A sign, an exponent or a second
 * number ("-3", "1e400", "10 to 20") makes the price unknown (undefined) instead of a wrong amount.
 */
function parsePrice(v: Json): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? v : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (s.length > MAX_PRICE_TEXT) return undefined;
  const amount = priceAmount(s);
  if (amount === undefined) return undefined;
  const cleaned = amount.replace(/[^\d.,]/g, "");
  // "1.299,00" -> 1299.00 ; "1,299.00" -> 1299.00 ; "12,50" -> 12.50
  let normalised = cleaned;
  if (/,\d{1,2}$/.test(cleaned)) normalised = cleaned.replace(/\./g, "").replace(",", ".");
  else normalised = cleaned.replace(/,/g, "");
  const n = Number(normalised);
  return normalised && Number.isFinite(n) && n >= 0 ? n : undefined;
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isAmountChar = (c: string) => isDigit(c) || c === "." || c === "," || c === "'" || /\s/.test(c);

/**
 * The amount part of a price text in one linear pass: text without digits or a sign, then digits with
 * `.` `,` `'` or white space between them, then text without digits. Anything else (a sign before the
 * amount, a second number) gives undefined. Replaces a backtracking regular expression whose running time
 * grew with the square of the text length.
 */
function priceAmount(s: string): string | undefined {
  let start = 0;
  while (start < s.length && !isDigit(s[start]!)) {
    if (s[start] === "+" || s[start] === "-") return undefined;
    start++;
  }
  if (start === s.length) return undefined;
  let end = start;
  while (end < s.length && isAmountChar(s[end]!)) end++;
  for (let i = end; i < s.length; i++) if (isDigit(s[i]!)) return undefined;
  return s.slice(start, end);
}

function currency(v: Json): string | undefined {
  const s = typeof v === "string" ? v.trim().toUpperCase() : "";
  return /^[A-Z]{3}$/.test(s) ? s : undefined;
}

function isType(node: Record<string, Json>, type: string): boolean {
  const t = node["@type"];
  const matches = (x: Json) =>
    typeof x === "string" && (x === type || x.endsWith(`/${type}`) || x.endsWith(`:${type}`));
  return Array.isArray(t) ? t.some(matches) : matches(t);
}

/** Walks JSON-LD values (arrays, `@graph`) and returns every Product node. */
function productNodes(
  value: Json,
  out: Array<Record<string, Json>> = [],
  depth = 0,
): Array<Record<string, Json>> {
  if (depth > 6 || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    for (const v of value.slice(0, 50)) productNodes(v, out, depth + 1);
    return out;
  }
  const node = value as Record<string, Json>;
  if (isType(node, "Product")) out.push(node);
  if (node["@graph"]) productNodes(node["@graph"], out, depth + 1);
  return out;
}

/** Image URL strings from a JSON-LD `image` value (a string, an ImageObject, or lists of them), 4 levels deep at most. */
function imageUrls(v: Json, depth = 0): string[] {
  if (typeof v === "string") return [v];
  if (depth >= 4) return [];
  if (Array.isArray(v)) return v.slice(0, MAX_IMAGE_CANDIDATES).flatMap((x) => imageUrls(x, depth + 1));
  if (v && typeof v === "object") {
    const o = v as Record<string, Json>;
    return imageUrls(o.url ?? o.contentUrl ?? [], depth + 1);
  }
  return [];
}

function offerOf(offers: Json): { price?: number; currency?: string } {
  const list = Array.isArray(offers) ? offers : offers ? [offers] : [];
  for (const o of list) {
    if (!o || typeof o !== "object") continue;
    const offer = o as Record<string, Json>;
    const spec = offer.priceSpecification as Record<string, Json> | undefined;
    const price = parsePrice(offer.price ?? offer.lowPrice ?? spec?.price);
    const cur = currency(offer.priceCurrency ?? spec?.priceCurrency);
    if (price !== undefined || cur)
      return { ...(price !== undefined ? { price } : {}), ...(cur ? { currency: cur } : {}) };
  }
  return {};
}

function brandOf(v: Json): string | undefined {
  if (Array.isArray(v)) return brandOf(v[0]);
  if (v && typeof v === "object") return text((v as Record<string, Json>).name, MAX_BRAND);
  return text(v, MAX_BRAND);
}

function absolute(urls: string[], base: string): string[] {
  const out: string[] = [];
  for (const u of urls) {
    try {
      const abs = new URL(u.trim(), base);
      if (
        (abs.protocol === "http:" || abs.protocol === "https:") &&
        abs.href.length <= MAX_URL &&
        !out.includes(abs.href)
      ) {
        out.push(abs.href);
      }
    } catch {
      // not a URL: ignored
    }
    if (out.length >= MAX_IMAGES) break;
  }
  return out;
}

/**
 * Extracts product details from `html` fetched from `pageUrl` (used to resolve relative image URLs).
 * Never throws on malformed markup or JSON-LD; returns what could be read.
 */
export function extractProductDetails(html: string, pageUrl: string): ProductDetails {
  // htmlparser2 (cheerio's `xml` option with `xmlMode: false`) parses HTML several times faster than parse5
  // and tolerates the same malformed markup; we need elements and attributes, not a spec-exact tree.
  const $ = cheerio().load(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html, {
    xml: { xmlMode: false, decodeEntities: true },
  });
  const found: Omit<ProductDetails, "image_urls" | "sources"> = {};
  const images: string[] = [];
  const sources: ProductDetails["sources"] = [];
  const set = <K extends keyof typeof found>(key: K, value: (typeof found)[K] | undefined) => {
    if (value !== undefined && found[key] === undefined) found[key] = value;
  };

  const products: Array<Record<string, Json>> = [];
  for (const el of $('script[type="application/ld+json"]').slice(0, MAX_JSON_LD_BLOCKS).toArray()) {
    try {
      const json = $(el).text();
      if (json.length <= MAX_JSON_LD_CHARS) productNodes(JSON.parse(json), products);
    } catch {
      // malformed JSON-LD is ignored
    }
  }
  const product = products[0];
  if (product) {
    sources.push("json_ld");
    set("title", text(product.name, MAX_TITLE));
    set("description", text(product.description, MAX_DESCRIPTION));
    const offer = offerOf(product.offers);
    set("price", offer.price);
    set("currency", offer.currency);
    set("brand", brandOf(product.brand));
    images.push(...imageUrls(product.image).slice(0, MAX_IMAGE_CANDIDATES));
  }

  const meta = (attr: "property" | "name", key: string): string | undefined => {
    const v = $(`meta[${attr}="${key}"]`).first().attr("content");
    return v === undefined ? undefined : v;
  };
  const og = {
    title: text(meta("property", "og:title"), MAX_TITLE),
    description: text(meta("property", "og:description"), MAX_DESCRIPTION),
    price: parsePrice(meta("property", "product:price:amount") ?? meta("property", "og:price:amount")),
    currency: currency(meta("property", "product:price:currency") ?? meta("property", "og:price:currency")),
    brand: text(meta("property", "product:brand") ?? meta("property", "og:brand"), MAX_BRAND),
    images: $(
      'meta[property="og:image"], meta[property="og:image:url"], meta[property="og:image:secure_url"]',
    )
      .slice(0, MAX_IMAGE_CANDIDATES)
      .map((_i, el) => $(el).attr("content") ?? "")
      .get()
      .filter(Boolean),
  };
  if (og.title || og.description || og.price !== undefined || og.images.length > 0) {
    sources.push("open_graph");
    set("title", og.title);
    set("description", og.description);
    set("price", og.price);
    set("currency", og.currency);
    set("brand", og.brand);
    images.push(...og.images);
  }

  const plainTitle = text($("title").first().text(), MAX_TITLE);
  const plainDescription = text(meta("name", "description"), MAX_DESCRIPTION);
  if (plainTitle || plainDescription) {
    if (found.title === undefined || found.description === undefined) sources.push("meta");
    set("title", plainTitle);
    set("description", plainDescription);
  }
  return { ...found, image_urls: absolute(images, pageUrl), sources };
}
