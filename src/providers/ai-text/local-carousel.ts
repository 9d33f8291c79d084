/**
 * The local provider's carousel copy (offline, deterministic): every slide is composed from the product's
 * own facts (title, brand, description sentences, tags as features, price) and the brief's words. Features
 * that share words with the brief come first, the brief's first sentence leads the opening slide, and no
 * two slides carry the same headline.
 */
import { type CarouselCopyRequest, LIMITS, type SlideCopy, type TextSubject } from "./types.ts";

const STOP = new Set(
  "about above after again also and any are because been before being both but can could does doing down each few for from further had has have having here how into its itself just more most much must not now off once only other our out over own same should some such than that the their them then there these they this those through too under until very was were what when where which while who why will with would you your".split(
    " ",
  ),
);

const clean = (s: string) => s.replace(/\s+/g, " ").trim();

function clip(s: string, n: number): string {
  const t = clean(s);
  if (t.length <= n) return t;
  const cut = t.slice(0, n - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > n * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, "")}…`;
}

function sentences(s: string | undefined): string[] {
  return clean(s ?? "")
    .split(/(?<=[.!?])\s+/)
    .map((x) => x.trim())
    .filter((x) => x.length >= 3);
}

/** The words of `s` worth matching (lower case, 4+ letters, no stop words). */
function keywords(s: string | undefined): Set<string> {
  return new Set(
    (s ?? "")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 4 && !STOP.has(w)),
  );
}

function priceText(s: TextSubject): string | undefined {
  if (s.price === undefined || !s.currency) return undefined;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: s.currency }).format(s.price);
  } catch {
    return undefined;
  }
}

/** The first clause of a sentence, as a headline. */
const clause = (s: string) => clean(s.split(/[,;:.!?]|\s[-–—]\s/)[0] ?? s);

/** Composes the copy of every slide of `req` (see the module comment). */
export function localCarouselCopy(req: CarouselCopyRequest): SlideCopy[] {
  const s = req.subject;
  const name = clean(s.name ?? "this product") || "this product";
  const price = priceText(s);
  const brief = keywords(s.brief);
  const briefLines = sentences(s.brief);
  const feats = [...sentences(s.description), ...(s.tags ?? []).map((t) => `Made for ${t}`)];
  const score = (f: string) => [...keywords(f)].filter((w) => brief.has(w)).length;
  const ranked = feats
    .map((f, i) => ({ f, i, n: score(f) }))
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .map((x) => x.f);
  const pool = ranked.length > 0 ? ranked : briefLines.length > 0 ? briefLines : [`${name}, up close`];
  const used = new Set<string>();
  const unique = (headline: string, alt: string) => {
    let h = clip(headline, LIMITS.slideHeadline);
    if (used.has(h.toLowerCase())) h = clip(alt, LIMITS.slideHeadline);
    for (let n = 2; used.has(h.toLowerCase()); n++) h = clip(`${alt} (${n})`, LIMITS.slideHeadline);
    used.add(h.toLowerCase());
    return h;
  };
  const variant = req.variant ?? 0;
  let next = variant;
  return req.slides.map((slide): SlideCopy => {
    switch (slide.role) {
      case "hook":
        return {
          headline: unique(
            variant % 2 === 0 ? (s.brand ? `${name} by ${s.brand}` : name) : `Meet ${name}`,
            `Say hello to ${name}`,
          ),
          body: clip(
            briefLines[variant % Math.max(1, briefLines.length)] ??
              pool[variant % pool.length] ??
              `Meet ${name}.`,
            LIMITS.slideBody,
          ),
        };
      case "price":
        return {
          headline: unique(
            variant % 2 === 0 ? (price ?? name) : `${name} for ${price ?? "less"}`,
            `${name} for ${price}`,
          ),
          body: clip(
            `${name}${pool[0] ? `: ${clause(pool[0]).toLowerCase()}` : ""}, all for ${price ?? "one price"}.`,
            LIMITS.slideBody,
          ),
        };
      case "cta":
        return {
          headline: unique(
            variant % 2 === 0
              ? price
                ? `Get ${name} for ${price}`
                : `Get ${name} today`
              : `Your ${name} is waiting`,
            `Shop ${name}`,
          ),
          body: clip(
            briefLines[1] ?? (pool[0] ? `${clause(pool[0])}. Order yours today.` : `Order ${name} today.`),
            LIMITS.slideBody,
          ),
        };
      default: {
        const f = pool[next % pool.length]!;
        next += 1;
        const alt = `${name}: ${clause(f).toLowerCase()}`;
        return {
          headline: unique(clause(f), slide.role === "proof" ? `Why people choose ${name}` : alt),
          body: clip(f, LIMITS.slideBody),
        };
      }
    }
  });
}
