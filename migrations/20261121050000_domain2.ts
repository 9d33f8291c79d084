/**
 * Domain II (carousels, social, automations, analytics): the carousel design catalog and the bookkeeping
 * columns of checkpoint retry and CTA artwork (service spec 1.7, 2.7, 8). Additive only.
 */
import type { Knex } from "knex";

/** Design systems offered by `list_carousel_formats`; `legacy-collage` is retired (inactive). */
const DESIGNS = [
  {
    id: "bold-minimal",
    name: "Bold minimal",
    description: "Large headline on a flat brand colour, one idea per slide.",
    formats: ["square", "portrait"],
    slide_counts: [4, 5, 6, 7, 8, 10],
    active: true,
  },
  {
    id: "product-showcase",
    name: "Product showcase",
    description: "Product-first slides: hero, features, price and a call to action.",
    formats: ["square", "portrait"],
    slide_counts: [4, 6, 8],
    active: true,
  },
  {
    id: "story-steps",
    name: "Story steps",
    description: "Numbered steps that walk through a problem, the product and the result.",
    formats: ["portrait", "story"],
    slide_counts: [5, 6, 7],
    active: true,
  },
  {
    id: "legacy-collage",
    name: "Legacy collage",
    description: "Retired design kept for existing carousels; not available for new generation.",
    formats: ["square"],
    slide_counts: [4],
    active: false,
  },
];

export async function up(knex: Knex): Promise<void> {
  for (const d of DESIGNS) {
    await knex("carousel_designs")
      .insert({ ...d, formats: JSON.stringify(d.formats) })
      .onConflict("id")
      .ignore();
  }
  await knex.schema.alterTable("carousel_runs", (t) => {
    t.uuid("cta_asset_id"); // stored CTA artwork reused as the last slide
    t.integer("images_charged").notNullable().defaultTo(0); // generated images paid for by this run
  });
  await knex.schema.alterTable("carousel_slides", (t) => {
    t.text("source").notNullable().defaultTo("generated"); // generated | cta_artwork
    t.text("error"); // safe failure reason of the last attempt
  });
  await knex.schema.alterTable("deliveries", (t) => {
    t.index(["workspace_id", "user_id", "created_at"]);
    t.index(["post_id"]);
  });
  await knex.schema.alterTable("automation_runs", (t) => {
    t.index(["automation_id", "created_at"]);
  });
  await knex.schema.alterTable("schedules", (t) => {
    t.index(["status", "scheduled_for"]);
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
