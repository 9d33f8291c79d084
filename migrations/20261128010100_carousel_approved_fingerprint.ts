/**
 * The content a carousel's approval binds (docs/social.md "Approved content"): `posts.approved_fingerprint`
 * is the fingerprint of the carousel's content (slides, caption, title) when the owner approved it with
 * approve_carousel. A carousel whose content no longer has it (a slide regenerated after it was published or
 * failed) is not published again, to any network or on /review, until it is approved again. Carousels
 * approved before this column carry null and are judged by their status, as before. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("posts", (t) => {
    t.text("approved_fingerprint").nullable();
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
