/**
 * Product details from the guarded URL analysis (service spec 4.2 rule 6): remote image URLs found
 * on the product page (kept as URLs, never downloaded) and when the page was last analysed.
 * Also an index for newest-first listing of products and media per owner.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("products", (t) => {
    t.jsonb("image_urls").notNullable().defaultTo("[]");
    t.timestamp("details_fetched_at", { useTz: true });
    t.index(["workspace_id", "user_id", "created_at"], "products_owner_created");
  });
  await knex.schema.alterTable("media_assets", (t) => {
    t.index(["workspace_id", "user_id", "created_at"], "media_assets_owner_created");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only");
}
