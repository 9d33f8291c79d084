/**
 * What an enabled automation publishes is what the owner approved (docs/social.md "Approved content:
 * automations"; src/domain/automations/publish-binding.ts):
 * - `automations.approved_publish` (jsonb): the publish facts the owner approved (product id, name, link,
 *   price in minor units, currency; destination account ids), `approved_publish_at` when;
 * - `automation_runs.publish_facts` (jsonb): the facts a run generated with; `held_reason`: why its post was
 *   kept as a draft instead of published (a fact changed since the approval), null once it was sent.
 * Automations enabled before this migration were approved under the former rules: their current facts are
 * recorded as approved. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("automations", (t) => {
    t.jsonb("approved_publish").nullable();
    t.timestamp("approved_publish_at", { useTz: true }).nullable();
  });
  await knex.schema.alterTable("automation_runs", (t) => {
    t.jsonb("publish_facts").nullable();
    t.text("held_reason").nullable();
  });
  await knex.raw(
    `update automations a set
       approved_publish = jsonb_build_object(
         'product_id', p.id, 'name', p.name, 'product_url', p.product_url, 'price_minor', p.price_minor,
         'currency', p.currency,
         'social_account_ids', case when jsonb_typeof(a.configuration->'social_account_ids') = 'array'
                                    then a.configuration->'social_account_ids' else '[]'::jsonb end),
       approved_publish_at = now()
     from products p
     where a.status = 'enabled' and a.deleted_at is null and p.deleted_at is null
       and p.id::text = a.configuration->>'product_id'`,
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
