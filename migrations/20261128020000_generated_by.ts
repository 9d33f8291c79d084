/**
 * Who made generated content (src/domain/ai-fallback.ts): a carousel slide's copy and image
 * (`carousel_slides.copy_provider`, `image_provider`) and a post's generated caption
 * (`posts.caption_provider`): the configured provider's name (`openai-compatible`) or `local` for the
 * offline stand-in (configured, or AI_FALLBACK=local after the provider failed); null when no provider made
 * it (the agent's caption, stored CTA artwork, content made before this column). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("carousel_slides", (t) => {
    t.text("copy_provider");
    t.text("image_provider");
  });
  await knex.schema.alterTable("posts", (t) => {
    t.text("caption_provider");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
