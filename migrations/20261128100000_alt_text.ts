/**
 * Alt text (WCAG 2.2 success criterion 1.1.1, non-text content): a media asset's own description
 * (`media_assets.alt_text`, written from a generated slide's words, or set by the owner in the media library),
 * and an image post's alt texts aligned with its `media_asset_ids` (`posts.alt_texts`, a JSON array of text or
 * null; null where the asset's own is used). Sent to each network in its own field (src/providers/social/
 * rules.ts `altText`). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("media_assets", (t) => {
    t.text("alt_text");
  });
  await knex.schema.alterTable("posts", (t) => {
    t.jsonb("alt_texts");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
