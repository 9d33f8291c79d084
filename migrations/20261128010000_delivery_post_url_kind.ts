/**
 * What a published delivery's `post_url` shows (docs/social.md "Deliveries: the engine"): `post` (the post
 * itself) or `profile` (only the creator's profile: TikTok gave no public post id, for a private post or
 * after the publisher's patience window; `provider_post_id` is then TikTok's publish_id, never queried as a
 * video id). Published TikTok deliveries recorded with their publish_id as the post id are marked `profile`,
 * other published deliveries with a URL `post`. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("deliveries", (t) => {
    t.text("post_url_kind").nullable();
  });
  await knex.raw(
    `alter table deliveries add constraint deliveries_post_url_kind_check
       check (post_url_kind is null or post_url_kind in ('post', 'profile'))`,
  );
  await knex.raw(
    `update deliveries d set post_url_kind = case
       when a.network = 'tiktok' and d.provider_post_id = d.network_ids->>'publishId' then 'profile'
       else 'post' end
     from social_accounts a
     where a.id = d.social_account_id and d.status = 'published' and d.post_url is not null`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
