/**
 * Initial schema (service spec 2 and DESIGN.md section 1). Additive only: later migrations add
 * columns and tables, never rewrite these. Tokens, codes and keys are stored only as SHA-256 hashes;
 * provider secrets and operation arguments/results are sealed (AES-256-GCM, src/crypto/seal.ts).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("create extension if not exists pgcrypto");
  const id = (t: Knex.CreateTableBuilder) => t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
  const ts = (t: Knex.CreateTableBuilder) => {
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  };
  const owned = (t: Knex.CreateTableBuilder) => {
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("cascade");
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.index(["workspace_id", "user_id"]);
  };

  // --- accounts
  await knex.schema.createTable("users", (t) => {
    id(t);
    t.text("email").notNullable();
    t.text("password_hash").notNullable();
    t.text("display_name");
    t.text("status").notNullable().defaultTo("active"); // active | disabled
    ts(t);
  });
  await knex.raw("create unique index users_email_lower on users (lower(email))");
  await knex.schema.createTable("workspaces", (t) => {
    id(t);
    t.text("name").notNullable();
    t.uuid("owner_user_id").notNullable().references("users.id").onDelete("cascade");
    ts(t);
  });
  await knex.schema.createTable("memberships", (t) => {
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("cascade");
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.text("role").notNullable().defaultTo("member"); // owner | member
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(["workspace_id", "user_id"]);
    t.index(["user_id"]);
  });
  await knex.schema.createTable("subscriptions", (t) => {
    t.uuid("user_id").primary().references("users.id").onDelete("cascade");
    t.text("plan").notNullable(); // creator | growth | pro
    t.text("status").notNullable().defaultTo("active");
    ts(t);
  });
  await knex.schema.createTable("credit_ledger", (t) => {
    t.bigIncrements("id");
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.uuid("workspace_id").references("workspaces.id").onDelete("set null");
    t.integer("delta").notNullable(); // credits; negative = charge
    t.text("reason").notNullable(); // e.g. grant:signup, charge:generate_carousel
    t.uuid("operation_id");
    t.uuid("reference_id"); // post, run or other record the entry is about
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["user_id"]);
  });

  // --- OAuth (service spec 2.1-2.3, 5)
  await knex.schema.createTable("oauth_clients", (t) => {
    t.uuid("client_id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("client_name");
    t.jsonb("redirect_uris").notNullable();
    t.jsonb("grant_types").notNullable();
    t.jsonb("response_types").notNullable();
    t.text("token_endpoint_auth_method").notNullable().defaultTo("none");
    t.text("application_type");
    t.jsonb("metadata").notNullable().defaultTo("{}"); // other accepted RFC 7591 fields
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable("oauth_grants", (t) => {
    id(t);
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("cascade");
    t.uuid("client_id").notNullable().references("oauth_clients.client_id").onDelete("cascade");
    t.text("resource").notNullable();
    t.text("scope").notNullable(); // space-separated
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("last_used_at", { useTz: true });
    t.timestamp("revoked_at", { useTz: true });
    t.text("revoked_reason");
    t.index(["user_id"]);
  });
  await knex.schema.createTable("oauth_authorization_codes", (t) => {
    t.text("code_hash").primary();
    t.uuid("grant_id").notNullable().references("oauth_grants.id").onDelete("cascade");
    t.uuid("client_id").notNullable();
    t.text("redirect_uri").notNullable();
    t.text("code_challenge").notNullable();
    t.text("code_challenge_method").notNullable().defaultTo("S256");
    t.text("resource").notNullable();
    t.text("scope").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("consumed_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable("oauth_refresh_tokens", (t) => {
    id(t);
    t.text("token_hash").notNullable().unique();
    t.uuid("grant_id").notNullable().references("oauth_grants.id").onDelete("cascade");
    t.text("scope").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("consumed_at", { useTz: true });
    t.uuid("replaced_by");
    t.timestamp("revoked_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["grant_id"]);
  });
  await knex.schema.createTable("oauth_access_tokens", (t) => {
    t.uuid("jti").primary();
    t.uuid("grant_id").notNullable().references("oauth_grants.id").onDelete("cascade");
    t.text("scope").notNullable();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("revoked_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["grant_id"]);
  });
  await knex.schema.createTable("browser_sessions", (t) => {
    t.text("id_hash").primary();
    t.uuid("user_id").notNullable().references("users.id").onDelete("cascade");
    t.text("csrf_token").notNullable();
    t.uuid("selected_workspace_id");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("last_seen_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.index(["user_id"]);
  });
  await knex.schema.createTable("oauth_consent_nonces", (t) => {
    t.text("nonce_hash").primary();
    t.text("session_id_hash").notNullable();
    t.text("request_hash").notNullable(); // SHA-256 of the canonical authorization request
    t.jsonb("request").notNullable(); // the validated authorization request (no secrets in it)
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // --- operations, idempotency, audit (service spec 2.5, 2.6, 2.8, 3.1)
  await knex.schema.createTable("operations", (t) => {
    id(t);
    t.uuid("grant_id").notNullable().references("oauth_grants.id").onDelete("cascade");
    t.uuid("user_id").notNullable();
    t.uuid("workspace_id").notNullable();
    t.uuid("client_id").notNullable();
    t.text("tool").notNullable();
    t.text("state").notNullable();
    t.text("arguments_sealed").notNullable();
    t.text("result_sealed");
    t.text("key_id").notNullable();
    t.text("error_code");
    t.text("error_message");
    t.jsonb("labels"); // plain-word description for the approval page (resource labels, destinations)
    t.integer("attempts").notNullable().defaultTo(0);
    t.integer("dispatch_count").notNullable().defaultTo(0);
    t.text("job_id");
    t.timestamp("approval_expires_at", { useTz: true });
    t.timestamp("decided_at", { useTz: true });
    t.timestamp("queued_at", { useTz: true });
    t.timestamp("claimed_at", { useTz: true });
    t.timestamp("deadline_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    ts(t);
    t.index(["grant_id", "created_at"]);
    t.index(["state", "updated_at"]);
  });
  await knex.schema.createTable("idempotency_records", (t) => {
    t.uuid("grant_id").notNullable().references("oauth_grants.id").onDelete("cascade");
    t.text("tool").notNullable();
    t.text("key_hash").notNullable();
    t.text("arguments_hash").notNullable();
    t.text("state").notNullable().defaultTo("in_flight"); // in_flight | done
    t.text("response_sealed");
    t.uuid("operation_id");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(["grant_id", "tool", "key_hash"]);
  });
  await knex.schema.createTable("audit_records", (t) => {
    t.bigIncrements("id");
    t.uuid("request_id").notNullable();
    t.uuid("user_id");
    t.uuid("workspace_id");
    t.uuid("grant_id");
    t.uuid("operation_id");
    t.text("tool").notNullable();
    t.specificType("argument_names", "text[]").notNullable();
    t.integer("duration_ms").notNullable();
    t.text("status").notNullable();
    t.text("error_code");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["user_id", "created_at"]);
  });

  // --- domain: media, products, posts
  await knex.schema.createTable("media_assets", (t) => {
    id(t);
    owned(t);
    t.text("kind").notNullable(); // image | video
    t.text("mime_type").notNullable();
    t.bigInteger("bytes").notNullable();
    t.integer("width");
    t.integer("height");
    t.double("duration_seconds");
    t.jsonb("labels").notNullable().defaultTo("[]");
    t.text("title");
    t.text("original_name");
    t.text("storage_key").notNullable(); // opaque key of the storage backend, never exposed
    t.text("sha256");
    t.text("source").notNullable().defaultTo("upload"); // upload | generated
    ts(t);
    t.timestamp("deleted_at", { useTz: true });
  });
  await knex.raw(
    `alter table media_assets add column search tsvector generated always as
     (to_tsvector('simple', coalesce(title,'') || ' ' || coalesce(original_name,'') || ' ' || coalesce(labels::text,''))) stored`,
  );
  await knex.raw("create index media_assets_search on media_assets using gin (search)");
  await knex.schema.createTable("products", (t) => {
    id(t);
    owned(t);
    t.text("name").notNullable();
    t.text("description");
    t.bigInteger("price_minor"); // price in minor units (cents)
    t.text("currency"); // ISO 4217
    t.text("product_url");
    t.text("brand");
    t.jsonb("tags").notNullable().defaultTo("[]");
    ts(t);
    t.timestamp("deleted_at", { useTz: true });
  });
  await knex.schema.createTable("product_assets", (t) => {
    id(t);
    t.uuid("product_id").notNullable().references("products.id").onDelete("cascade");
    t.uuid("media_asset_id").notNullable().references("media_assets.id").onDelete("cascade");
    t.text("role").notNullable().defaultTo("image");
    t.integer("position").notNullable().defaultTo(0);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["product_id", "media_asset_id"]);
  });
  await knex.schema.createTable("posts", (t) => {
    id(t);
    owned(t);
    t.text("type").notNullable(); // text | image | carousel | video
    t.text("status").notNullable().defaultTo("draft"); // draft | needs_review | approved | scheduled | publishing | published | failed
    t.text("title");
    t.text("caption");
    t.uuid("product_id").references("products.id").onDelete("set null");
    t.jsonb("media_asset_ids").notNullable().defaultTo("[]");
    t.uuid("automation_run_id");
    ts(t);
    t.timestamp("deleted_at", { useTz: true });
    t.index(["workspace_id", "user_id", "created_at"]);
  });
  await knex.raw(
    `alter table posts add column search tsvector generated always as
     (setweight(to_tsvector('english', coalesce(title,'')), 'A') || setweight(to_tsvector('english', coalesce(caption,'')), 'B')) stored`,
  );
  await knex.raw("create index posts_search on posts using gin (search)");

  // --- carousels
  await knex.schema.createTable("carousel_designs", (t) => {
    t.text("id").primary();
    t.text("name").notNullable();
    t.text("description").notNullable();
    t.jsonb("formats").notNullable(); // e.g. ["square", "portrait"]
    t.specificType("slide_counts", "integer[]").notNullable();
    t.boolean("active").notNullable().defaultTo(true);
  });
  await knex.schema.createTable("carousel_runs", (t) => {
    id(t);
    owned(t);
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.uuid("product_id");
    t.text("design_id").notNullable();
    t.text("format");
    t.integer("slide_count").notNullable();
    t.text("kind").notNullable().defaultTo("generate"); // generate | regenerate_slide | retry
    t.text("status").notNullable(); // queued | running | succeeded | failed
    t.integer("credits_charged").notNullable().defaultTo(0);
    t.jsonb("outline"); // the saved plan
    t.text("error");
    t.uuid("operation_id");
    ts(t);
  });
  await knex.schema.createTable("carousel_slides", (t) => {
    id(t);
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.uuid("run_id").references("carousel_runs.id").onDelete("set null");
    t.integer("position").notNullable();
    t.text("status").notNullable(); // pending | generating | ready | failed
    t.text("headline");
    t.text("body");
    t.text("image_prompt_sealed");
    t.uuid("image_asset_id");
    ts(t);
    t.unique(["post_id", "position"]);
  });

  // --- social
  await knex.schema.createTable("social_accounts", (t) => {
    id(t);
    owned(t);
    t.text("network").notNullable(); // instagram | tiktok | facebook | youtube | linkedin | pinterest | x
    t.text("display_name").notNullable();
    t.text("handle");
    t.text("status").notNullable().defaultTo("connected"); // connected | expired | error
    t.text("access_token_sealed");
    t.text("refresh_token_sealed");
    t.text("provider_metadata_sealed");
    t.timestamp("connected_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    ts(t);
  });
  await knex.schema.createTable("schedules", (t) => {
    id(t);
    owned(t);
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.timestamp("scheduled_for", { useTz: true }).notNullable();
    t.text("status").notNullable(); // scheduled | publishing | published | failed | canceled
    t.uuid("operation_id");
    ts(t);
  });
  await knex.schema.createTable("deliveries", (t) => {
    id(t);
    owned(t);
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.uuid("social_account_id").notNullable().references("social_accounts.id").onDelete("cascade");
    t.uuid("schedule_id").references("schedules.id").onDelete("set null");
    t.text("status").notNullable(); // pending | publishing | published | failed | needs_review
    t.text("post_url");
    t.text("provider_post_id");
    t.text("error");
    t.timestamp("scheduled_for", { useTz: true });
    t.timestamp("published_at", { useTz: true });
    t.uuid("operation_id");
    ts(t);
  });

  // --- automations
  await knex.schema.createTable("automations", (t) => {
    id(t);
    owned(t);
    t.text("kind").notNullable(); // video | carousel
    t.text("name").notNullable();
    t.text("status").notNullable().defaultTo("draft"); // draft | enabled | disabled
    t.text("template_id");
    t.jsonb("configuration").notNullable();
    t.uuid("cta_asset_id").references("media_assets.id").onDelete("set null");
    t.jsonb("daily_times").notNullable().defaultTo("[]"); // ["09:00", ...] in the automation's time zone
    t.text("time_zone").notNullable().defaultTo("UTC");
    ts(t);
    t.timestamp("deleted_at", { useTz: true });
  });
  await knex.schema.createTable("automation_runs", (t) => {
    id(t);
    owned(t);
    t.uuid("automation_id").notNullable().references("automations.id").onDelete("cascade");
    t.text("kind").notNullable();
    t.text("trigger").notNullable(); // manual | schedule
    t.text("status").notNullable(); // queued | running | succeeded | failed
    t.integer("credits_charged").notNullable().defaultTo(0);
    t.uuid("post_id");
    t.jsonb("result");
    t.text("error");
    t.uuid("operation_id");
    t.timestamp("started_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    ts(t);
  });

  // --- analytics (saved lifetime counters as of the last sync, service spec 2.7)
  await knex.schema.createTable("account_metrics", (t) => {
    id(t);
    owned(t);
    t.uuid("social_account_id").notNullable().references("social_accounts.id").onDelete("cascade");
    t.bigInteger("followers");
    t.bigInteger("views");
    t.bigInteger("likes");
    t.bigInteger("comments");
    t.bigInteger("shares");
    t.jsonb("coverage").notNullable().defaultTo("{}");
    t.timestamp("synced_at", { useTz: true }).notNullable();
    t.unique(["social_account_id"]);
  });
  await knex.schema.createTable("post_metrics", (t) => {
    id(t);
    owned(t);
    t.uuid("delivery_id").notNullable().references("deliveries.id").onDelete("cascade");
    t.uuid("post_id").notNullable().references("posts.id").onDelete("cascade");
    t.bigInteger("views");
    t.bigInteger("likes");
    t.bigInteger("comments");
    t.bigInteger("shares");
    t.bigInteger("saves");
    t.jsonb("coverage").notNullable().defaultTo("{}");
    t.timestamp("synced_at", { useTz: true }).notNullable();
    t.unique(["delivery_id"]);
  });

  // --- shared rate limits (rate-limiter-flexible's Postgres store uses its own table, created lazily)
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
