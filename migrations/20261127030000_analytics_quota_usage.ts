/**
 * Quota units the metrics sync spent per app and quota day, counted across workers (docs/analytics.md
 * "Failures and rate limits"; src/domain/analytics/budgets.ts): YouTube's Data API quota
 * (`ANALYTICS_YOUTUBE_DAILY_QUOTA` units per day ending at midnight Pacific; `videos.list` / `channels.list`
 * 1 unit each). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("analytics_quota_usage", (t) => {
    t.text("scope_key").notNullable();
    t.text("day").notNullable();
    t.integer("units").notNullable().defaultTo(0);
    t.primary(["scope_key", "day"]);
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
