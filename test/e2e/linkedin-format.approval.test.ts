/**
 * The LinkedIn format is part of the approval (docs/social.md "LinkedIn carousels are documents"): a post of
 * several images approved while the account's `linkedin_carousel` said `document` is recorded on its delivery
 * (`approved_format`) and goes out as a document even when the setting is changed to `images` before it is
 * published, and the other way round; a setting changed between the request and the decision makes the
 * request stale. The real tool pipeline, `decideOperation`, the worker's `processOperation` and the
 * due-schedule pass, with the live LinkedIn adapter against its provider-shaped fake (test/fakes/linkedin.ts,
 * through SOCIAL_HTTP_OVERRIDE).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { publishDueSchedules } from "../../src/domain/social/schedules.ts";
import { decideOperation } from "../../src/operations/approvals.ts";
import { processOperation } from "../../src/operations/execute.ts";
import { createRuntime } from "../../src/runtime/pipeline.ts";
import type { Envelope } from "../../src/tool-contract.ts";
import { linkedinFake } from "../fakes/linkedin.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { startTestApp } from "../helpers/app.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";
import { call, connection, key } from "../operations/helpers.ts";
import { storedImage } from "../tools/carousels/fixtures.ts";

const server = await startFakeNetworks();
const li = linkedinFake(server, { ...FAKE_APPS.linkedin, processingPolls: 0 });
const app = await startTestApp({
  env: {
    ...HIGH_LIMITS,
    ...liveNetworkEnv(server, ["linkedin"]),
    RATE_LIMIT_APPROVAL: "1000",
    RATE_LIMIT_WRITES: "1000",
  },
});
const rt = createRuntime(app.ctx, [...TOOLS_BY_NAME.values()]);
const db = app.ctx.db;
const alice = await app.user({ workspace: "Alice Studio" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const auth = await connection(app, alice, [
  "create:content",
  "read:content",
  "publish:content",
  "schedule:content",
  "read:schedules",
  "read:jobs",
]);

/** A live LinkedIn member account of the fake, connected as the browser flow does. */
const member = li.addMember({ name: "Alice Baker" });
const tokens = {
  accessToken: member.accessToken,
  refreshToken: member.refreshToken,
  expiresAt: new Date(Date.now() + 30 * 86_400_000),
  scopes: member.scopes,
};
const [networkAccount] = await app.ctx.providers.networks.adapter("linkedin").oauth.accounts(tokens);
const { account } = await upsertConnectedAccount(db, app.ctx.sealer, owner, {
  network: "linkedin",
  mode: "live",
  account: networkAccount!,
  tokens,
  now: new Date(),
});
const linkedin = account.social_account_id;

const setFormat = (value: "document" | "images" | null) =>
  db("social_accounts")
    .where({ id: linkedin })
    .update({ settings: value ? { linkedin_carousel: value } : {} });

async function ok(name: string, args: Record<string, unknown>): Promise<Envelope> {
  const env = await call(rt, auth, name, { idempotency_key: key(), ...args });
  assert.equal(env.error, undefined, `${name}: ${JSON.stringify(env.error)}`);
  return env;
}

/** An image post of three stored images. */
async function threeImagePost(caption: string): Promise<string> {
  const ids = [await storedImage(app, alice), await storedImage(app, alice), await storedImage(app, alice)];
  const env = await ok("create_image_post", { media_asset_ids: ids, caption });
  return env.data!.post_id as string;
}

const requestSchedule = (postId: string) =>
  ok("schedule_post", {
    post_id: postId,
    scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
    social_account_ids: [linkedin],
  });

/** Approves and runs `env`'s request; makes its schedule due and publishes it. @returns the delivery row. */
async function approveAndPublish(env: Envelope, beforePublishing: () => Promise<unknown>) {
  assert.equal(
    (await decideOperation(app.ctx, env.operation_id!, alice.user_id, "approve")).kind,
    "approved",
  );
  await processOperation(app.ctx, env.operation_id!);
  const op = await db("operations").where({ id: env.operation_id }).first();
  assert.equal(op.state, "succeeded", op.error_message ?? "");
  const before = await db("deliveries").where({ operation_id: env.operation_id }).first();
  await beforePublishing();
  await db("schedules")
    .where({ id: before.schedule_id })
    .update({ scheduled_for: new Date(Date.now() - 1000) });
  assert.equal(await publishDueSchedules(app.ctx), 1);
  const after = await db("deliveries").where({ id: before.id }).first();
  assert.equal(after.status, "published", after.error ?? "");
  return { before, after };
}

test("approved as a document, the setting changed to images before publishing: a document goes out", async () => {
  await setFormat(null);
  const env = await requestSchedule(await threeImagePost("Three mugs, one document"));
  const { before, after } = await approveAndPublish(env, () => setFormat("images"));
  assert.equal(before.approved_format, "document");
  const post = li.posts.get(after.provider_post_id)!;
  assert.match(post.content?.media?.id ?? "", /^urn:li:document:/, JSON.stringify(post.content));
  assert.equal(post.content?.multiImage, undefined);
});

test("approved as images, the setting changed to document before publishing: the images go out", async () => {
  await setFormat("images");
  const env = await requestSchedule(await threeImagePost("Three mugs, three images"));
  const { before, after } = await approveAndPublish(env, () => setFormat("document"));
  assert.equal(before.approved_format, "images");
  const post = li.posts.get(after.provider_post_id)!;
  assert.equal(post.content?.multiImage?.images.length, 3, JSON.stringify(post.content));
  assert.equal(post.content?.media, undefined);
});

test("the setting changed between the request and the decision: the request is stale, nothing is scheduled", async () => {
  await setFormat(null);
  const postId = await threeImagePost("Three mugs, asked as a document");
  const env = await requestSchedule(postId);
  await setFormat("images");
  const decided = await decideOperation(app.ctx, env.operation_id!, alice.user_id, "approve");
  assert.equal(decided.kind, "stale");
  assert.equal(await db("deliveries").where({ post_id: postId }).first(), undefined);
});
