/**
 * The local provider's carousel copy (offline, deterministic; docs/providers.md "AI text"). Each slide's
 * words come from its role (src/domain/carousels/outline.ts) and the product's facts (product-facts.ts):
 * feature slides take the description's sentences in turn, split into a 2-to-8-word headline and the rest as
 * body; proof, how-to and recap slides take the reviews, the steps and the features' headlines; the other
 * roles (hook, question, close-up, benefit, gift, price, comment, save, share, CTA) are written from
 * templates filled with the product's name, kind, tags, price and link. No body is used twice and no headline
 * twice in one carousel; a headline never appears inside its own body. A regeneration (`variant` 1, 2, ...)
 * rewords each slide from the same facts (the other form of its headline and body), so a slide redone on its
 * own still says nothing another slide says.
 */
import { type Feature, type ProductFacts, productFacts } from "./product-facts.ts";
import { BODY_MAX, HEADLINE_WORDS } from "./phrases.ts";
import { capitalise, key, period, sentences } from "./sentences.ts";
import type { CarouselCopyRequest, SlideCopy } from "./types.ts";

/** Headlines for a feature slide whose sentence gives none, and for the reworded variant. */
const FEATURE_HEADLINES = [
  "Good to know",
  "The details",
  "Worth knowing",
  "What sets it apart",
  "Worth a closer look",
  "Small detail, big difference",
  "Thought through",
  "One more thing",
  "Built to be used",
  "Why it stands out",
];

/** Close-up slides: headline and body (`{name}` is the short name). */
const CLOSEUPS: Array<[string, string]> = [
  ["Take a closer look", "This is {name}, up close."],
  ["Every detail counts", "Every part of {name}, in detail."],
  ["From every angle", "{name}, seen from every side."],
  ["A closer look", "Look closer at {name}."],
  ["In the details", "The details of {name}, one by one."],
  ["All angles covered", "Turn {name} around and look again."],
];

const words = (s: string) => s.split(" ").filter(Boolean).length;

/** The host and path of `url` without "www." and a trailing slash ("shop.example/bottle"), or undefined. */
function shortUrl(url: string | undefined): string | undefined {
  try {
    const u = new URL(url ?? "");
    if (u.protocol !== "https:" && u.protocol !== "http:") return undefined;
    const host = u.host.replace(/^www\./, "");
    return host;
  } catch {
    return undefined;
  }
}

/** Sentences of `items` joined while the body stays within BODY_MAX characters (at least the first). */
function joinWithin(items: string[]): string {
  let out = "";
  for (const item of items) {
    const next = out ? `${out} ${item}` : item;
    if (out && next.length > BODY_MAX) break;
    out = next;
  }
  return out;
}

/** What every role writer sees. */
interface Ctx {
  facts: ProductFacts;
  name: string;
  /** The full name with its brand when it fits in a headline. */
  title: string;
  url: string | undefined;
  roles: string[];
  variant: number;
  /** Headlines already written (comparison keys). */
  headlines: Set<string>;
}

/** One slide's copy for `role`; `n` counts earlier slides of the same role; `feature` is its fact. */
function write(c: Ctx, role: string, n: number, feature: Feature | undefined): SlideCopy {
  const { facts, name, variant } = c;
  const alt = variant % 2 === 1;
  const fill = (s: string) => s.replaceAll("{name}", name);
  const features = c.roles.filter((r) => r === "feature").length;
  switch (role) {
    case "hook": {
      const headline = alt || words(c.title) < HEADLINE_WORDS.min ? `Meet ${name}` : c.title;
      const teaser =
        features >= 2
          ? alt
            ? "Swipe to see what makes it different."
            : `Swipe for ${features} reasons to love it.`
          : alt
            ? "Here it is, up close."
            : "Swipe to take a closer look.";
      return { headline, body: facts.briefLines[alt ? 1 : 0] ?? teaser };
    }
    case "question":
      return alt
        ? {
            headline: words(name) <= 6 ? `Why ${name}?` : "Why this one?",
            body: "A few good reasons, one slide at a time.",
          }
        : {
            headline: facts.kind ? `Looking for the right ${facts.kind}?` : "Looking for something new?",
            body: `Here is why ${name} is worth a look.`,
          };
    case "feature": {
      const from = feature?.details && !alt ? 0 : (n + (alt ? 5 : 1)) % FEATURE_HEADLINES.length;
      const generic = [...FEATURE_HEADLINES.slice(from), ...FEATURE_HEADLINES.slice(0, from)].find(
        (h) => !c.headlines.has(key(h)),
      )!;
      if (!feature) return { headline: generic, body: "" };
      if (alt || !feature.headline) return { headline: generic, body: feature.sentence };
      return { headline: feature.headline, body: feature.body || `One more reason to choose ${name}.` };
    }
    case "closeup": {
      const [headline, body] = CLOSEUPS[(n + (alt ? 3 : 0)) % CLOSEUPS.length]!;
      return { headline, body: capitalise(fill(body)) };
    }
    case "benefit":
      return { headline: alt ? "Made for your day" : "Where it shines", body: joinWithin(facts.benefits) };
    case "how_to":
      return {
        headline: alt ? (facts.howTo.length >= 3 ? "Easy as 1, 2, 3" : "Getting started") : "How to use it",
        body: joinWithin(facts.howTo),
      };
    case "proof":
      return {
        headline: alt ? "Don't take our word for it" : "What people say",
        body: joinWithin(facts.proof),
      };
    case "recap": {
      const heads = facts.features.flatMap((f) => (f.headline ? [period(f.headline)] : []));
      return { headline: alt ? "The short version" : "In short", body: joinWithin(heads) };
    }
    case "gift":
      return alt
        ? { headline: "Gift idea", body: `${capitalise(name)} makes an easy gift.` }
        : { headline: "Thinking of a gift?", body: `${capitalise(name)} is an easy one to give.` };
    case "price":
      return alt
        ? { headline: `All this for ${facts.price}`, body: `${capitalise(name)} at one clear price.` }
        : {
            headline: `Yours for ${facts.price}`,
            body: facts.priceLines[0] ?? `Everything you just saw, in one ${name}.`,
          };
    case "comment":
      return alt
        ? { headline: "Tell us what you think", body: "Leave a comment: we read every one." }
        : { headline: "Got a question?", body: "Ask in the comments and we will answer." };
    case "save":
      return alt
        ? { headline: "Save it for later", body: "Tap save so you can find it again." }
        : { headline: "Save this post", body: "Come back to it when you are ready to order." };
    case "share":
      return alt
        ? { headline: "Send it to a friend", body: "Know someone who would love it? Pass this on." }
        : { headline: "Share with a friend", body: `Know someone who needs ${name}? Send this to them.` };
    default: {
      // cta (and any role this writer does not know: the closing call to action).
      const pricedElsewhere = c.roles.includes("price");
      const offer = facts.price && !pricedElsewhere ? ` for ${facts.price}` : "";
      const named = words(name) <= 4 ? `Get ${name} today` : undefined;
      const headline = alt ? (named ? "Get yours today" : "Order yours now") : (named ?? "Get yours today");
      // The slide's button already shows the link ("Shop at {host}"): the first wording does not repeat it.
      if (!alt)
        return {
          headline,
          body: `${facts.kind ? `Your new ${facts.kind}` : "Yours"}${offer}, one tap away.`,
        };
      return { headline, body: c.url ? `Find ${name} at ${c.url}.` : `Order ${name}${offer} now.` };
    }
  }
}

/** The writer's context for `req`. */
function context(req: CarouselCopyRequest): Ctx {
  const facts = productFacts(req.subject);
  const name = facts.shortName;
  const branded = facts.brand && !key(name).includes(key(facts.brand)) ? `${name} by ${facts.brand}` : name;
  return {
    facts,
    name,
    title: words(branded) <= HEADLINE_WORDS.max ? branded : name,
    url: shortUrl(req.productUrl),
    roles: req.slides.map((s) => s.role),
    variant: req.variant ?? 0,
    headlines: new Set(),
  };
}

/** Roles whose body is a template filled with the product's name, price or link (no fact of its own). */
const TEMPLATE_ROLES = ["hook", "question", "closeup", "gift", "price", "comment", "save", "share", "cta"];

/**
 * Comparison keys (sentences.ts `key`) of every template sentence this writer can put in a body for
 * `subject`, in either variant: what a caption built from the slides leaves out (local-caption.ts).
 */
export function templateSentences(subject: CarouselCopyRequest["subject"], productUrl?: string): Set<string> {
  const out = new Set<string>();
  for (const variant of [0, 1]) {
    const ctx = context({ subject, productUrl, slides: [], variant });
    const lone: Feature = { headline: "x", body: "", sentence: "" };
    const copies = [
      ...TEMPLATE_ROLES.flatMap((role) => CLOSEUPS.map((_c, n) => write(ctx, role, n, undefined))),
      write(ctx, "feature", 0, lone),
    ];
    for (const c of copies) for (const s of sentences(c.body)) out.add(key(s));
  }
  return out;
}

/** Composes the copy of every slide of `req` (see the module comment). */
export function localCarouselCopy(req: CarouselCopyRequest): SlideCopy[] {
  const ctx = context(req);
  const facts = ctx.facts;
  const seen = new Map<string, number>();
  const next = (role: string) => {
    const n = seen.get(role) ?? 0;
    seen.set(role, n + 1);
    return n;
  };
  const heads = ctx.headlines;
  const bodies = new Set<string>();
  const fresh = (c: SlideCopy) => Boolean(c.body) && !heads.has(key(c.headline)) && !bodies.has(key(c.body));
  return req.slides.map((slide) => {
    const role = slide.role === "price" && !facts.price ? "closeup" : slide.role;
    const n = next(role);
    let copy = write(ctx, role, n, role === "feature" ? facts.features[n] : undefined);
    // A role whose source ran short (an outline planned from other text) becomes a close-up.
    for (let k = 0; k < CLOSEUPS.length && !fresh(copy); k++)
      copy = write(ctx, "closeup", next("closeup"), undefined);
    heads.add(key(copy.headline));
    bodies.add(key(copy.body));
    return copy;
  });
}
