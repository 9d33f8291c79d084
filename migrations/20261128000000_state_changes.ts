/**
 * Notifications for long polls (src/db/change-feed.ts; DESIGN.md section 4 `wait_seconds`): after a change of
 * an operation's state, a carousel run's or carousel post's status, or an automation run's status, the row's
 * transaction sends `pg_notify('smcp_state', '<kind>:<id>')`, delivered to every listening instance on commit
 * (https://www.postgresql.org/docs/current/sql-notify.html). Also the recovery fields of a failed operation's
 * error (`retry`, the page where a person acts), shown by get_job_status, and the destinations a carousel was
 * generated for (generate_carousel `social_account_ids`, checked before charging and named in get_carousel's
 * `next`). Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function smcp_notify_operation() returns trigger language plpgsql as $$
    begin
      perform pg_notify('smcp_state', 'operation:' || new.id::text);
      return null;
    end $$;
    create trigger operations_state_notify after update of state on operations
      for each row when (old.state is distinct from new.state) execute function smcp_notify_operation();

    create function smcp_notify_carousel_run() returns trigger language plpgsql as $$
    begin
      perform pg_notify('smcp_state', 'carousel_post:' || new.post_id::text);
      return null;
    end $$;
    create trigger carousel_runs_status_notify after insert or update of status on carousel_runs
      for each row execute function smcp_notify_carousel_run();

    create function smcp_notify_post() returns trigger language plpgsql as $$
    begin
      if new.type = 'carousel' then
        perform pg_notify('smcp_state', 'carousel_post:' || new.id::text);
      end if;
      return null;
    end $$;
    create trigger posts_status_notify after update of status on posts
      for each row when (old.status is distinct from new.status) execute function smcp_notify_post();

    create function smcp_notify_automation_run() returns trigger language plpgsql as $$
    begin
      perform pg_notify('smcp_state', 'automation_run:' || new.id::text);
      return null;
    end $$;
    create trigger automation_runs_status_notify after update of status on automation_runs
      for each row when (old.status is distinct from new.status) execute function smcp_notify_automation_run();
  `);
  await knex.schema.alterTable("operations", (t) => {
    t.text("error_retry");
    t.text("error_action_path");
  });
  await knex.schema.alterTable("carousel_runs", (t) => {
    t.jsonb("destination_account_ids");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
