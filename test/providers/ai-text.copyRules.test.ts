/**
 * Offline copy that reads well (docs/providers.md "AI text"), table-driven over the product fixtures
 * (test/fixtures/product-descriptions.ts), every design and every slide count: sentences come from
 * Intl.Segmenter (decimals, abbreviations, prices, lists); a headline is 2 to 8 words, ends where a clause
 * ends and is not inside its own body; no body (or body sentence) twice in one carousel; a product with
 * fewer facts than slides gets other roles, not repeats; a regenerated slide says something else and
 * still repeats no other slide. The bottle of the issue reads as a marketer would write it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SLIDE_COUNTS, type SlideCount } from "../../src/domain/carousels/formats.ts";
import { buildOutline, type Outline, SLIDE_ROLES } from "../../src/domain/carousels/outline.ts";
import { localAiText } from "../../src/providers/ai-text/local.ts";
import { DANGLING } from "../../src/providers/ai-text/phrases.ts";
import { productFacts } from "../../src/providers/ai-text/product-facts.ts";
import { sentences } from "../../src/providers/ai-text/sentences.ts";
import type { TextSubject } from "../../src/providers/ai-text/types.ts";
import { DESIGNS } from "../../src/providers/render/designs.ts";
import { BOTTLE, PRODUCT_FIXTURES, type ProductFixture } from "../fixtures/product-descriptions.ts";

const signal = new AbortController().signal;
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

const subjectOf = (p: ProductFixture, brief?: string): TextSubject => ({
  kind: "product",
  name: p.name,
  description: p.description ?? undefined,
  brand: p.brand ?? undefined,
  price: p.price_minor === null ? undefined : p.price_minor / (p.currency === "JPY" ? 1 : 100),
  currency: p.currency ?? undefined,
  tags: p.tags,
  brief,
});

test("sentences: Intl.Segmenter keeps decimals, prices, abbreviations and list items whole", () => {
  const cases: Array<[string, string[]]> = [
    [
      "A 1.2 litre bottle that keeps drinks cold for 24 hours and hot for 12. The cap locks with a quarter turn.",
      [
        "A 1.2 litre bottle that keeps drinks cold for 24 hours and hot for 12.",
        "The cap locks with a quarter turn.",
      ],
    ],
    ["Was $149.99, now $119.00. Ships today.", ["Was $149.99, now $119.00.", "Ships today."]],
    [
      "Works with any grind, e.g. a supermarket blend. Developed with Dr. Ana Ruiz. Makes approx. 1.5 L.",
      [
        "Works with any grind, e.g. a supermarket blend.",
        "Developed with Dr. Ana Ruiz.",
        "Makes approx. 1.5 L.",
      ],
    ],
    [
      "Intro line.\n- 800 lm LED\n• Energy class A++\n2) Feed it daily",
      ["Intro line.", "800 lm LED", "Energy class A++", "Feed it daily"],
    ],
    ["One-liner without a full stop", ["One-liner without a full stop"]],
  ];
  for (const [text, want] of cases) assert.deepEqual(sentences(text), want, text);
});

/** The rules every carousel's copy follows; `p` is the product it was written from. */
function assertRules(p: ProductFixture, roles: string[], copy: Array<{ headline: string; body: string }>) {
  const where = `${p.id} ${copy.length} slides`;
  const description = norm(p.description ?? "");
  const heads = copy.map((c) => norm(c.headline));
  const bodies = copy.map((c) => norm(c.body));
  assert.equal(new Set(heads).size, heads.length, `${where}: a headline twice: ${heads}`);
  assert.equal(new Set(bodies).size, bodies.length, `${where}: a body twice`);
  const bodySentences = copy.flatMap((c) => sentences(c.body).map(norm));
  assert.equal(new Set(bodySentences).size, bodySentences.length, `${where}: a body sentence twice`);
  copy.forEach((c, i) => {
    const at = `${where}, slide ${i + 1} (${roles[i]}): "${c.headline}" / "${c.body}"`;
    const words = c.headline.split(/\s+/);
    assert.ok(words.length >= 2 && words.length <= 8, `${at}: 2 to 8 words`);
    assert.doesNotMatch(c.headline, /…|\.\.\./, `${at}: not cut`);
    assert.ok(!DANGLING.has(norm(words.at(-1)!)), `${at}: ends on a dangling word`);
    assert.ok(!norm(c.body).includes(norm(c.headline)), `${at}: the headline is inside its body`);
    assert.ok(c.body.length > 0 && c.body.length <= 220, `${at}: body length`);
    assert.match(c.body, /[.!?]["”’)]?$/u, `${at}: the body ends as a sentence`);
    // A headline cut from the description ends where the description's clause ends.
    const h = norm(c.headline);
    const found = description.indexOf(h);
    if (found >= 0 && h.split(" ").length >= 2) {
      const raw = (p.description ?? "").toLowerCase();
      const lastWord = c.headline
        .split(/\s+/)
        .at(-1)!
        .toLowerCase()
        .replace(/[.,;:!?]+$/, "");
      const after = raw.slice(
        raw.indexOf(lastWord, raw.indexOf(c.headline.split(/\s+/)[0]!.toLowerCase())) + lastWord.length,
      );
      assert.match(
        after,
        /^(?:[,;:.!?)]|\s+[-–—]\s|\s+(?:that|which|who|so|because|while|when|where|and|but|plus)\b|\s*$)/u,
        `${at}: ends mid-clause (next: "${after.slice(0, 20)}")`,
      );
    }
  });
  assert.ok(norm(copy[0]!.headline).includes(norm(p.name)), `${where}: the hook names the product`);
  assert.equal(roles[0], "hook");
  assert.equal(roles.at(-1), "cta");
}

test("every fixture x design x slide count: the copy rules hold and no fact is repeated", () => {
  let checked = 0;
  for (const p of PRODUCT_FIXTURES) {
    const facts = productFacts(subjectOf(p));
    for (const design of Object.keys(DESIGNS)) {
      for (const n of SLIDE_COUNTS) {
        const o = buildOutline(p, design, "portrait", n);
        const roles = o.slides.map((s) => s.role);
        assert.equal(o.slides.length, n);
        for (const r of roles) assert.ok((SLIDE_ROLES as readonly string[]).includes(r), r);
        assert.ok(
          roles.filter((r) => r === "feature").length <= facts.features.length,
          `${p.id} ${n}: more feature slides than facts`,
        );
        assertRules(p, roles, o.slides);
        checked++;
      }
    }
  }
  assert.equal(checked, PRODUCT_FIXTURES.length * Object.keys(DESIGNS).length * SLIDE_COUNTS.length);
  assert.ok(PRODUCT_FIXTURES.length >= 10);
});

test("the local provider writes the outline's draft copy; each regenerated slide says something else, repeating no other slide", async () => {
  for (const p of PRODUCT_FIXTURES) {
    for (const n of SLIDE_COUNTS) {
      const o: Outline = buildOutline(p, "quote-card", "square", n as SlideCount);
      const request = (variant: number) => ({
        subject: subjectOf(p),
        productUrl: p.product_url ?? undefined,
        slides: o.slides.map((s) => ({ position: s.position, role: s.role })),
        variant,
      });
      const first = await localAiText.carouselCopy(request(0), signal);
      assert.deepEqual(
        first,
        o.slides.map((s) => ({ headline: s.headline, body: s.body })),
      );
      const next = await localAiText.carouselCopy(request(1), signal);
      assertRules(
        p,
        o.slides.map((s) => s.role),
        next,
      );
      next.forEach((c, i) => {
        assert.notEqual(c.headline, first[i]!.headline, `${p.id} ${n}: slide ${i + 1} redone says the same`);
        const mixed = first.map((f, j) => (j === i ? c : f));
        const bodies = mixed.map((m) => norm(m.body));
        assert.equal(
          new Set(bodies).size,
          bodies.length,
          `${p.id} ${n}: redone slide ${i + 1} repeats a body`,
        );
      });
    }
  }
});

test("fewer facts than slides: other roles, never a repeated fact", () => {
  const oneLiner = PRODUCT_FIXTURES.find((p) => p.id === "one-liner-no-price")!;
  const roles = buildOutline(oneLiner, "bold-minimal", "square", 10).slides.map((s) => s.role);
  assert.equal(roles.filter((r) => r === "feature").length, 1);
  assert.deepEqual(roles, [
    "hook",
    "question",
    "feature",
    "closeup",
    "closeup",
    "gift",
    "comment",
    "save",
    "share",
    "cta",
  ]);
  const reviews = PRODUCT_FIXTURES.find((p) => p.id === "reviews")!;
  const o = buildOutline(reviews, "quote-card", "square", 6);
  const proof = o.slides.find((s) => s.role === "proof");
  assert.ok(proof, "the reviews found on the product page give a social proof slide");
  assert.match(proof.body, /Rated 4\.8 out of 5 by 2,300 sleepers\./);
  const kit = PRODUCT_FIXTURES.find((p) => p.id === "numbered-how-to")!;
  const steps = buildOutline(kit, "story-steps", "portrait", 6).slides.find((s) => s.role === "how_to");
  assert.match(
    steps?.body ?? "",
    /^Mix the dried starter with 50 g flour and 50 ml water\. Feed it once a day/,
  );
});

test("the issue's bottle reads as a marketer would write it", () => {
  const copy = buildOutline(BOTTLE, "bold-minimal", "portrait", 6).slides.map(
    (s) => `${s.role}: ${s.headline} / ${s.body}`,
  );
  assert.deepEqual(copy, [
    "hook: Summit Bottle by Summit Gear / Swipe for 3 reasons to love it.",
    "feature: 1.2 litre insulated steel bottle / Keeps drinks cold for 24 hours and hot for 12.",
    "feature: The leak-proof cap locks with a quarter turn / It rides in a bag without spills.",
    "feature: The powder coat grips in wet hands / Survives drops on rock.",
    "price: Yours for $39.00 / Everything you just saw, in one Summit Bottle.",
    "cta: Get Summit Bottle today / Your new bottle, one tap away.",
  ]);
  const all = buildOutline(BOTTLE, "bold-minimal", "portrait", 10).slides.map(
    (s) => `${s.headline} ${s.body}`,
  );
  assert.ok(
    all.some((s) => s.includes("Dishwasher safe. Fits most car cup holders.")),
    "short facts together",
  );
  for (const s of all) assert.doesNotMatch(s, /\bA 1\b|a 1,|\b1\.$/, "never cut at the decimal point");
});
