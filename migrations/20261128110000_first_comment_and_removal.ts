/**
 * A delivery's first comment and its removal from the network (docs/social.md "First comments" and
 * "Delete with removal from the networks"):
 * - `first_comment`: the approved text, posted under the published post; `first_comment_status` pending |
 *   posted | failed | unsupported (the network has no comment API); the comment's network id and URL, saved
 *   once; `first_comment_reason` (safe text) of a failure; `first_comment_sent_at` marks a create that was
 *   sent and not yet answered (the next attempt reads the post's comments before sending again);
 *   `first_comment_attempt` and `first_comment_next_at` pace retries.
 * - `removed_at`: when delete_post with `remove_from_networks` took the copy down (status `removed`).
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("deliveries", (t) => {
    t.text("first_comment").nullable();
    t.text("first_comment_status").nullable();
    t.text("first_comment_id").nullable();
    t.text("first_comment_url").nullable();
    t.text("first_comment_reason").nullable();
    t.timestamp("first_comment_sent_at", { useTz: true }).nullable();
    t.integer("first_comment_attempt").notNullable().defaultTo(0);
    t.timestamp("first_comment_next_at", { useTz: true }).nullable();
    t.timestamp("removed_at", { useTz: true }).nullable();
  });
  await knex.raw(
    `alter table deliveries add constraint deliveries_first_comment_status_check
       check (first_comment_status is null or first_comment_status in ('pending', 'posted', 'failed', 'unsupported'))`,
  );
  await knex.raw(
    `create index deliveries_first_comment_due on deliveries (first_comment_next_at)
       where first_comment_status = 'pending' and status = 'published'`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
