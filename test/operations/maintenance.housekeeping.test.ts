/**
 * Maintenance steps beyond the operation states (docs/operations.md): due post schedules are published
 * (once across concurrent passes), and idempotency records past the 7-day retention are deleted unless
 * their operation is still unfinished.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { rowBinding } from "../../src/crypto/seal.ts";
import { schedulePost } from "../../src/domain/social/schedules.ts";
import { IDEMPOTENCY_RETENTION_SECONDS, runMaintenance } from "../../src/operations/maintenance.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { account, imagePost } from "../tools/carousels/fixtures.ts";

const clock = new TestClock();
const app = await startTestApp({ queue: false, clock });
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };

test("due post schedules are published by maintenance, exactly once across concurrent passes", async () => {
  const insta = await account(app, me, "instagram", "Shop Insta");
  const postId = await imagePost(app, me, "Launch day");
  const at = new Date(clock.now().getTime() + 3600_000).toISOString();
  const view = await schedulePost(
    app.ctx,
    owner,
    { post_id: postId, scheduled_for: at, social_account_ids: [insta] },
    undefined,
  );
  assert.equal(view.status, "scheduled");
  let report = await runMaintenance(app.ctx);
  assert.equal(report.schedulesPublished, 0, "not due yet");
  clock.advance(3601);
  const reports = await Promise.all([runMaintenance(app.ctx), runMaintenance(app.ctx)]);
  assert.equal(reports[0]!.schedulesPublished + reports[1]!.schedulesPublished, 1);
  const row = await app.ctx.db("schedules").where({ id: view.schedule_id }).first();
  assert.equal(row.status, "published");
  const deliveries = await app.ctx.db("deliveries").where({ schedule_id: view.schedule_id });
  assert.deepEqual(
    deliveries.map((d: { status: string }) => d.status),
    ["published"],
  );
  report = await runMaintenance(app.ctx);
  assert.equal(report.schedulesPublished, 0);
});

test("idempotency records older than 7 days are deleted, unless their operation is unfinished", async () => {
  const c = await connect(app, me, ["delete:content"]);
  const now = clock.now();
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const operation = async (state: string) => {
    const id = randomUUID();
    const [op] = await app.ctx
      .db("operations")
      .insert({
        id,
        grant_id: c.grantId,
        user_id: me.user_id,
        workspace_id: me.workspace_id,
        client_id: c.clientId,
        tool: "delete_post",
        state,
        arguments_sealed: app.ctx.sealer.seal({}, rowBinding("operations", "arguments_sealed", id)),
        key_id: app.ctx.sealer.keyId,
      })
      .returning("id");
    return op.id as string;
  };
  const record = async (name: string, createdAt: Date, operationId: string | null) => {
    await app.ctx.db("idempotency_records").insert({
      grant_id: c.grantId,
      tool: "delete_post",
      key_hash: name,
      arguments_hash: "h",
      state: "done",
      response_sealed: app.ctx.sealer.seal(
        {},
        rowBinding("idempotency_records", "response_sealed", `${c.grantId}/delete_post/${name}`),
      ),
      operation_id: operationId,
      created_at: createdAt,
      updated_at: createdAt,
    });
  };
  const old = IDEMPOTENCY_RETENTION_SECONDS + 60;
  await record("old-inline", ago(old), null);
  await record("old-finished", ago(old), await operation("succeeded"));
  await record("old-denied", ago(old), await operation("denied"));
  await record("old-running", ago(old), await operation("running"));
  await record("old-gone", ago(old), randomUUID());
  await record("fresh", ago(IDEMPOTENCY_RETENTION_SECONDS - 3600), null);

  const report = await runMaintenance(app.ctx);
  assert.equal(report.idempotencyRecords, 4);
  const left = await app.ctx
    .db("idempotency_records")
    .where({ grant_id: c.grantId })
    .orderBy("key_hash")
    .pluck("key_hash");
  assert.deepEqual(left, ["fresh", "old-running"]);
  assert.equal((await runMaintenance(app.ctx)).idempotencyRecords, 0);
});

test("registered clients that never obtained a token are deleted after OAUTH_UNUSED_CLIENT_TTL_SECONDS", async () => {
  const ttl = app.ctx.config.worker.unusedClientTtlSeconds;
  assert.equal(ttl, 7 * 24 * 3600, "default: 7 days");
  const insert = async (name: string, ageSeconds: number) => {
    const [row] = await app.ctx
      .db("oauth_clients")
      .insert({
        client_name: name,
        redirect_uris: JSON.stringify(["https://a.example/cb"]),
        grant_types: JSON.stringify(["authorization_code"]),
        response_types: JSON.stringify(["code"]),
        created_at: new Date(clock.now().getTime() - ageSeconds * 1000),
      })
      .returning("client_id");
    return row.client_id as string;
  };
  const fresh = await insert("fresh", ttl - 60);
  const abandoned = await insert("abandoned", ttl + 60);
  // A grant created at consent whose code was never exchanged does not keep its client.
  const consentedOnly = await insert("consented only", ttl + 60);
  await app.ctx.db("oauth_grants").insert({
    user_id: me.user_id,
    workspace_id: me.workspace_id,
    client_id: consentedOnly,
    resource: app.resource,
    scope: "read:profile",
    created_at: clock.now(),
  });
  // A client that completed a grant (an access token was issued) is kept, however old.
  const used = await connect(app, me, ["read:profile"]);
  const usedClient = used.clientId;
  await app.ctx
    .db("oauth_clients")
    .where({ client_id: usedClient })
    .update({ created_at: new Date(clock.now().getTime() - (ttl + 3600) * 1000) });
  const report = await runMaintenance(app.ctx);
  const left = new Set(
    ((await app.ctx.db("oauth_clients").select("client_id")) as Array<{ client_id: string }>).map(
      (r) => r.client_id,
    ),
  );
  assert.ok(left.has(fresh));
  assert.ok(left.has(usedClient));
  assert.ok(!left.has(abandoned));
  assert.ok(!left.has(consentedOnly));
  assert.ok(report.unusedClients >= 2);
});
