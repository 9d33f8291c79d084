/**
 * Maintenance steps beyond the operation states (docs/operations.md): due post schedules are published
 * (once across concurrent passes), and idempotency records past the 7-day retention are deleted unless
 * their operation is still unfinished.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
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
    const [op] = await app.ctx
      .db("operations")
      .insert({
        grant_id: c.grantId,
        user_id: me.user_id,
        workspace_id: me.workspace_id,
        client_id: c.clientId,
        tool: "delete_post",
        state,
        arguments_sealed: app.ctx.sealer.seal({}),
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
      response_sealed: app.ctx.sealer.seal({}),
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
