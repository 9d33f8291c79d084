/**
 * A credit refund is written at most once per refunded record (service spec 8 credits; src/domain/carousels/
 * settle.ts): a partial unique index on `credit_ledger.reference_id` for `refund:` rows. Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create unique index credit_ledger_refund_once on credit_ledger (reference_id)
     where reason like 'refund:%' and reference_id is not null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop index if exists credit_ledger_refund_once");
}
