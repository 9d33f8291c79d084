/**
 * The owner's time zone (`users.time_zone`, an IANA name such as `Europe/Berlin`, default `UTC`): pages show
 * schedule and delivery times in it (the posts page, src/web/posts.ts); the user sets it on /settings
 * (src/domain/account/time-zone.ts). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.text("time_zone").notNullable().defaultTo("UTC");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => t.dropColumn("time_zone"));
}
