/**
 * The consent evidence of TikTok Direct Posts (service spec 1.11; networks.md 2.1 "Required UX for the
 * Direct Post audit" and "Lessons": record the express consent with the user, time and IP). One row per
 * Publish on /review: who, when, from which IP, the post, the TikTok account, the delivery it created, the
 * creator options chosen (TikTok's field names, the same object stored on the delivery) and the declaration
 * text shown next to the button. Captions are not copied here. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("tiktok_consents", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("cascade");
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.uuid("social_account_id").notNullable().references("social_accounts.id").onDelete("cascade");
    t.uuid("delivery_id").notNullable().references("deliveries.id").onDelete("cascade");
    t.text("ip");
    t.jsonb("options").notNullable();
    t.text("declaration").notNullable();
    t.timestamp("consented_at", { useTz: true }).notNullable();
    t.index(["workspace_id", "consented_at"]);
    t.index(["delivery_id"]);
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
