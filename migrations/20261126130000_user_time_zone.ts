/**
 * The owner's time zone (`users.time_zone`, an IANA name such as `Europe/Berlin`; null: not chosen, times in
 * UTC): the posts page shows schedule and delivery times in it (src/web/posts.ts), approval pages beside UTC;
 * the user chooses it on /settings (src/domain/account/time-zone.ts). The approval work adds the same column
 * in its own migration; this one adds it only when it is missing, so either may run first. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasColumn("users", "time_zone")) return;
  await knex.schema.alterTable("users", (t) => {
    t.text("time_zone");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
