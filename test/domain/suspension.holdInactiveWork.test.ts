/**
 * Suspended or removed users and workspaces: their due scheduled posts are not published and their enabled
 * automations do not run; both are marked with a clear reason. The delivery engine holds their deliveries
 * (with or without a schedule) and a social account cannot be connected to a suspended workspace. The work
 * of active accounts is untouched.
 * Real scheduler passes (publishDueSchedules, runDueAutomations) over a real database, the local provider.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { HOLD_REASONS, holdInactiveWork } from "../../src/domain/account/suspension.ts";
import { createAutomation } from "../../src/domain/automations/automations.ts";
import { runDueAutomations } from "../../src/domain/automations/schedule.ts";
import { ConnectError, finishConnect, startConnect } from "../../src/domain/social/connect.ts";
import { runDeliveryStep, runDueDeliveries } from "../../src/domain/social/engine.ts";
import { publishDueSchedules, schedulePost } from "../../src/domain/social/schedules.ts";
import { authorizationProblem } from "../../src/operations/execute.ts";
import { ManualClock, startTestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";
import { account, balance, product, textPost } from "../tools/carousels/fixtures.ts";

const clock = new ManualClock("2026-06-01T12:58:00Z");
const app = await startTestApp({ queue: false, clock });

/** A user with credits, a connected account, a due schedule (pending delivery) and an enabled 09:00 automation. */
async function world() {
  const who = await app.user({ plan: "pro" });
  await grantCredits(app.ctx.db, who.user_id, 500, "test:grant");
  const owner = { userId: who.user_id, workspaceId: who.workspace_id };
  const insta = await account(app, who, "facebook"); // Facebook accepts text-only posts
  const postId = await textPost(app, who, "Scheduled launch");
  const sched = await schedulePost(
    app.ctx,
    owner,
    {
      post_id: postId,
      social_account_ids: [insta],
      scheduled_for: new Date(clock.now().getTime() + 3600_000).toISOString(),
    },
    undefined,
  );
  await app.ctx
    .db("schedules")
    .where({ id: sched.schedule_id })
    .update({ scheduled_for: new Date(clock.now().getTime() - 1000) });
  const productId = await product(app, who);
  const view = await app.ctx.db.transaction((trx) =>
    createAutomation(
      trx,
      owner,
      {
        kind: "video",
        name: "Daily 09:00",
        configuration: { type: "grid-video", template_id: "2x2-grid", product_id: productId },
        daily_times: ["09:00"],
        time_zone: "America/New_York",
      },
      clock.now(),
    ),
  );
  await app.ctx.db("automations").where({ id: view.automation_id }).update({ status: "enabled" });
  return { who, scheduleId: sched.schedule_id, automationId: view.automation_id };
}

const active = await world();
const suspendedUser = await world();
const suspendedWorkspace = await world();
const removedUser = await world();
const exMember = await world();

async function schedule(w: { scheduleId: string }) {
  const s = await app.ctx.db("schedules").where({ id: w.scheduleId }).first();
  const deliveries = await app.ctx.db("deliveries").where({ schedule_id: w.scheduleId });
  return { status: s.status, reason: s.status_reason, deliveries };
}
const automation = (w: { automationId: string }) =>
  app.ctx.db("automations").where({ id: w.automationId }).first("status", "status_reason");
const runs = async (w: { automationId: string }) =>
  (await app.ctx.db("automation_runs").where({ automation_id: w.automationId })).length;

test("the work of suspended, removed and former members is stopped with a reason; active work runs", async () => {
  await app.ctx.db("users").where({ id: suspendedUser.who.user_id }).update({ status: "suspended" });
  await app.ctx.db("users").where({ id: removedUser.who.user_id }).update({ status: "removed" });
  await app.ctx
    .db("workspaces")
    .where({ id: suspendedWorkspace.who.workspace_id })
    .update({ status: "suspended" });
  // A member removed from a workspace whose owner is someone else: reassign ownership, drop the membership.
  const owner2 = await app.user();
  await app.ctx
    .db("workspaces")
    .where({ id: exMember.who.workspace_id })
    .update({ owner_user_id: owner2.user_id });
  await app.ctx.db("memberships").where({ user_id: exMember.who.user_id }).delete();
  const balances = await Promise.all(
    [suspendedUser, suspendedWorkspace, removedUser].map((w) => balance(app, w.who)),
  );

  assert.equal(await publishDueSchedules(app.ctx), 1, "only the active user's schedule is published");
  const published = await schedule(active);
  assert.equal(published.status, "published");
  assert.ok(published.deliveries.every((d: { status: string }) => d.status === "published"));

  for (const [w, reason] of [
    [suspendedUser, HOLD_REASONS.user],
    [removedUser, HOLD_REASONS.user],
    [suspendedWorkspace, HOLD_REASONS.workspace],
    [exMember, HOLD_REASONS.membership],
  ] as const) {
    const s = await schedule(w);
    assert.equal(s.status, "canceled");
    assert.equal(s.reason, reason);
    assert.ok(
      s.deliveries.every(
        (d: { status: string; error: string; post_url: string | null }) =>
          d.status === "failed" && d.error === reason && d.post_url === null,
      ),
    );
  }

  await runDueAutomations(app.ctx); // watermark
  clock.set("2026-06-01T13:00:30Z"); // 09:00 in New York
  const pass = await runDueAutomations(app.ctx);
  assert.equal(pass.started, 1);
  assert.equal(await runs(active), 1);
  assert.equal((await automation(active)).status, "enabled");
  for (const [w, reason] of [
    [suspendedUser, HOLD_REASONS.user],
    [removedUser, HOLD_REASONS.user],
    [suspendedWorkspace, HOLD_REASONS.workspace],
    [exMember, HOLD_REASONS.membership],
  ] as const) {
    assert.equal(await runs(w), 0);
    assert.deepEqual(await automation(w), { status: "disabled", status_reason: reason });
  }
  assert.deepEqual(
    await Promise.all([suspendedUser, suspendedWorkspace, removedUser].map((w) => balance(app, w.who))),
    balances,
    "nothing charged",
  );
  assert.deepEqual(await holdInactiveWork(app.ctx.db, clock.now()), { schedules: 0, automations: 0 });
});

test("`admin workspace set-status` and `admin user set-status` hold the work at once; bad statuses are refused", async () => {
  const w = await world();
  const out = (await runAdmin(app.ctx.db, [
    "workspace",
    "set-status",
    "--workspace-id",
    w.who.workspace_id,
    "--status",
    "suspended",
  ])) as { held: { schedules: number; automations: number } };
  assert.deepEqual(out.held, { schedules: 1, automations: 1 });
  assert.equal((await schedule(w)).reason, HOLD_REASONS.workspace);
  await assert.rejects(
    runAdmin(app.ctx.db, ["user", "set-status", "--email", w.who.email, "--status", "frozen"]),
    /status must be one of active, suspended, removed/,
  );
  const u = await world();
  await runAdmin(app.ctx.db, ["user", "set-status", "--email", u.who.email, "--status", "suspended"]);
  assert.deepEqual(await automation(u), { status: "disabled", status_reason: HOLD_REASONS.user });
});

test("a queued operation of a suspended workspace is refused when the worker re-checks it", async () => {
  const w = await world();
  const c = await connect(app, w.who, ["read:profile"]);
  const op = {
    grant_id: c.grantId,
    user_id: w.who.user_id,
    workspace_id: w.who.workspace_id,
    tool_scope: null,
  };
  assert.equal(await authorizationProblem(app.ctx, op), undefined);
  await app.ctx.db("workspaces").where({ id: w.who.workspace_id }).update({ status: "suspended" });
  assert.equal((await authorizationProblem(app.ctx, op))?.code, "forbidden");
});

test("the delivery engine holds the deliveries of a suspended workspace or user, also those without a schedule", async () => {
  const who = await app.user();
  const fb = await account(app, who, "facebook");
  const immediate = async () => {
    const [row] = await app.ctx
      .db("deliveries")
      .insert({
        workspace_id: who.workspace_id,
        user_id: who.user_id,
        post_id: await textPost(app, who, "Publish now"),
        social_account_id: fb,
        status: "pending",
      })
      .returning("id");
    return row.id as string;
  };
  const held = await immediate();
  await app.ctx.db("workspaces").where({ id: who.workspace_id }).update({ status: "suspended" });
  assert.equal(await runDeliveryStep(app.ctx, held), undefined, "not claimed");
  assert.equal(await runDueDeliveries(app.ctx), 0);
  assert.equal((await app.ctx.db("deliveries").where({ id: held }).first()).status, "pending", "held");
  await app.ctx.db("workspaces").where({ id: who.workspace_id }).update({ status: "active" });
  await app.ctx.db("users").where({ id: who.user_id }).update({ status: "suspended" });
  assert.equal(await runDeliveryStep(app.ctx, held), undefined, "a suspended user's delivery is held too");
  await app.ctx.db("users").where({ id: who.user_id }).update({ status: "active" });
  assert.notEqual(await runDeliveryStep(app.ctx, held), undefined, "it runs once both are active again");
  assert.notEqual((await app.ctx.db("deliveries").where({ id: held }).first()).status, "pending");
});

test("connecting a social account finishes only while the workspace is active", async () => {
  const who = await app.user();
  await startConnect(app.ctx, {
    sessionHash: "s".repeat(64),
    userId: who.user_id,
    workspaceId: who.workspace_id,
    network: "facebook",
  });
  const [state] = await app.ctx.db("social_connect_states").where({ user_id: who.user_id }).select("id");
  assert.ok(state);
  await app.ctx.db("workspaces").where({ id: who.workspace_id }).update({ status: "suspended" });
  // The state's hash is stored, not the state: make a known one.
  await app.ctx
    .db("social_connect_states")
    .where({ id: state.id })
    .update({ state_hash: createHash("sha256").update("known-state").digest("hex") });
  await assert.rejects(
    finishConnect(app.ctx, {
      network: "facebook",
      sessionHash: "s".repeat(64),
      state: "known-state",
      code: "a-code",
      error: undefined,
    }),
    (err: unknown) =>
      err instanceof ConnectError && err.message === `Nothing was connected: ${HOLD_REASONS.workspace}.`,
  );
  assert.equal((await app.ctx.db("social_accounts").where({ user_id: who.user_id })).length, 0);
});
