/**
 * When a delivery's post was started on its network (docs/social.md "The delivery engine"):
 * `deliveries.started_at` is set by the step that takes the delivery out of `pending` (its first call that
 * makes something on the network was answered, or its answer was lost), and set again when a delivery
 * reconciled as never created starts over. The engine reads an account's recent starts when a network refuses
 * a start for its per-account start budget (TikTok: 6 inits a minute per user access token, a sliding window),
 * to wait until the oldest start in the window leaves it, not a whole window from the refusal.
 *
 * The index (social_account_id, started_at) also serves the engine's other per-account look-ups of
 * deliveries (an account held after a rate-limit answer). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("deliveries", (t) => {
    t.timestamp("started_at", { useTz: true }).nullable();
  });
  await knex.raw("create index deliveries_account_started on deliveries (social_account_id, started_at)");
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
