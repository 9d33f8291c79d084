/**
 * Connected accounts through OAuth and the delivery engine (service spec 1.8, 2.7, 3.1; docs/social.md).
 * - `social_accounts`: the network's own account id (reconnecting updates the row: unique per workspace,
 *   network and network account), `mode` (live | sandbox), granted scopes, token expiry, per-account
 *   settings set on /settings/social, publishing capabilities, avatar, the last safe error. Status values:
 *   connected | needs_reconnect | disconnected (older rows may say expired or error).
 * - `social_connect_states`: one row per connect attempt: the SHA-256 of `state`, bound to the browser
 *   session and workspace, single use, 10 minutes; the PKCE verifier and (Facebook page picker) the accounts
 *   found after consent are sealed.
 * - `deliveries`: the state machine `pending -> uploading -> processing -> published | failed` plus
 *   `outcome_unknown`: network ids saved as soon as they exist, attempts, the next attempt time, a lease
 *   (`locked_until`) and `step_started_at` (set while a step runs: a worker that dies mid-step leaves it,
 *   and the next one reconciles before anything else). In-flight `publishing` rows become `pending`.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("social_accounts", (t) => {
    t.text("network_account_id");
    t.text("mode").notNullable().defaultTo("sandbox"); // live | sandbox
    t.jsonb("scopes").notNullable().defaultTo("[]");
    t.timestamp("token_expires_at", { useTz: true });
    t.timestamp("refresh_expires_at", { useTz: true });
    t.timestamp("token_refreshed_at", { useTz: true });
    t.jsonb("settings").notNullable().defaultTo("{}");
    t.jsonb("capabilities").notNullable().defaultTo("{}");
    t.text("avatar_url");
    t.text("last_error");
  });
  await knex.raw(
    `create unique index social_accounts_network_account on social_accounts
     (workspace_id, network, network_account_id) where network_account_id is not null`,
  );
  await knex.raw(
    `create index social_accounts_token_expiry on social_accounts (token_expires_at)
     where status = 'connected' and token_expires_at is not null`,
  );
  await knex.schema.createTable("social_connect_states", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("state_hash").notNullable().unique();
    t.text("session_hash").notNullable();
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("cascade");
    t.text("network").notNullable();
    t.text("code_verifier_sealed");
    t.text("redirect_uri").notNullable();
    t.text("pending_accounts_sealed");
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("consumed_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.alterTable("deliveries", (t) => {
    t.jsonb("network_ids").notNullable().defaultTo("{}");
    t.jsonb("options").notNullable().defaultTo("{}");
    t.integer("attempt").notNullable().defaultTo(0);
    t.timestamp("next_attempt_at", { useTz: true });
    t.timestamp("locked_until", { useTz: true });
    t.timestamp("step_started_at", { useTz: true });
  });
  await knex.raw(
    `create index deliveries_due on deliveries (next_attempt_at)
     where status in ('pending', 'uploading', 'processing', 'outcome_unknown')`,
  );
  await knex("deliveries").where({ status: "publishing" }).update({ status: "pending" });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
