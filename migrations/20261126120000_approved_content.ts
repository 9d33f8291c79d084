/**
 * What is approved is what goes out (service spec 4.4; docs/operations.md, docs/social.md):
 * - `operations.decision`: how a review request was decided (`approved`, `declined`, `expired`), so that
 *   repeating a denied request answers `denied` with the decision and its time;
 * - `deliveries.content_fingerprint`: the SHA-256 of the content the owner approved for this destination
 *   (src/domain/social/content.ts); the delivery engine compares it with the post before every step that can
 *   create something on the network. `approved_link` and `approved_board_id`: the Pinterest link and board as
 *   approved, used as such when the Pin is created;
 * - `carousel_runs`: the render job's lease (`lease_expires_at`, extended while a worker renders), how many
 *   times a worker took the render (`render_attempts`), and when the render job was handed to the queue
 *   (`render_dispatched_at`; null while the operation has not handed it over);
 * - `users.time_zone`: the IANA time zone the approval pages show times in (null: UTC only).
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("operations", (t) => {
    t.text("decision"); // approved | declined | expired (review requests)
  });
  await knex("operations")
    .where({ state: "denied" })
    .whereNotNull("decided_at")
    .update({
      decision: knex.raw(
        "case when approval_expires_at is not null and decided_at >= approval_expires_at then 'expired' else 'declined' end",
      ),
    });
  await knex.schema.alterTable("deliveries", (t) => {
    t.text("content_fingerprint");
    t.text("approved_link");
    t.text("approved_board_id");
  });
  await knex.schema.alterTable("carousel_runs", (t) => {
    t.timestamp("lease_expires_at", { useTz: true });
    t.integer("render_attempts").notNullable().defaultTo(0);
    t.timestamp("render_dispatched_at", { useTz: true });
  });
  await knex.raw(
    "create index carousel_runs_render_lease on carousel_runs (lease_expires_at) where status = 'running' and lease_expires_at is not null",
  );
  await knex.raw(
    "create index carousel_runs_render_waiting on carousel_runs (render_dispatched_at) where status = 'queued' and render_dispatched_at is not null",
  );
  await knex.raw(
    `create index deliveries_active_post on deliveries (post_id)
     where status in ('pending', 'uploading', 'processing', 'outcome_unknown')`,
  );
  await knex.schema.alterTable("users", (t) => {
    t.text("time_zone");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
