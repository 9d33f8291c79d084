/**
 * The format a delivery was approved in (docs/social.md "LinkedIn carousels are documents"):
 * `deliveries.approved_format` is `document` or `images` for a LinkedIn post of two or more images (the
 * account's `linkedin_carousel` setting when the approval's content was read, src/domain/social/content.ts)
 * and null otherwise. The LinkedIn publisher uses it instead of the account's current setting, so changing the
 * setting after the approval does not change what goes out. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("deliveries", (t) => {
    t.text("approved_format").nullable();
  });
  await knex.raw(
    `alter table deliveries add constraint deliveries_approved_format_check
       check (approved_format is null or approved_format in ('document', 'images'))`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
