/**
 * Rendered carousel slides (service spec 1.7): three more design systems (six active layouts in all: full
 * bleed, photo card, numbered, split, editorial serif, quote), and per-slide bookkeeping so that a slide can
 * be re-rendered without a new image: the generated visual kept apart from the composed slide, the design the
 * slide was laid out in, and how many copy drafts it has had. The run keeps its sealed brief (the request's
 * `prompt`) for the copy and records what a regeneration redoes. Additive only.
 */
import type { Knex } from "knex";

const DESIGNS = [
  {
    id: "split-frame",
    name: "Split frame",
    description: "Product photo on one half, headline and body on the other; top and bottom on tall formats.",
    formats: ["square", "portrait", "story"],
    slide_counts: [4, 5, 6, 7, 8, 10],
    active: true,
  },
  {
    id: "editorial-serif",
    name: "Editorial serif",
    description:
      "Magazine page: numbered kicker, large serif headline, body copy and a framed product photo.",
    formats: ["portrait", "square", "story"],
    slide_counts: [4, 5, 6, 7, 8, 10],
    active: true,
  },
  {
    id: "quote-card",
    name: "Quote card",
    description:
      "Testimonial style: a large quotation in a display serif with the product as the attribution.",
    formats: ["square", "portrait", "story"],
    slide_counts: [4, 5, 6, 7, 8],
    active: true,
  },
];

export async function up(knex: Knex): Promise<void> {
  for (const d of DESIGNS) {
    await knex("carousel_designs")
      .insert({ ...d, formats: JSON.stringify(d.formats) })
      .onConflict("id")
      .ignore();
  }
  await knex.schema.alterTable("carousel_slides", (t) => {
    t.text("visual_key"); // storage key of the generated visual (5 credits), reused by copy/layout re-renders
    t.text("design_id"); // the design the slide is laid out in (null: the run's design)
    t.integer("copy_variant").notNullable().defaultTo(0); // copy drafts after the first
  });
  await knex.schema.alterTable("carousel_runs", (t) => {
    t.text("brief_sealed"); // the request's prompt (sealed), the copy's brief
    t.text("redo"); // regenerate_slide runs: image | copy | layout
    t.text("instructions_sealed"); // regenerate_slide runs: the instructions (sealed)
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only");
}
