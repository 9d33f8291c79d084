/**
 * Pinterest through the service: the live adapter (src/providers/social/pinterest/) driven by the delivery
 * engine and the publish tools against the provider-shaped fake (test/fakes/pinterest.ts), reached through
 * SOCIAL_HTTP_OVERRIDE, with the service's signed public media URLs pulled by the fake over HTTP.
 * - connect saves the only board as the account's board; a reconnect never overwrites the user's choice;
 *   /settings/social offers the boards;
 * - publish_post / schedule_post refuse a live Pinterest account without a board (account_setup_required)
 *   and a carousel of images of different sizes (validation_failed, rule image_dimensions);
 * - an image Pin with the product link, and a video Pin, published with the fake's permalinks;
 * - the worker dies while the video is processing -> reconciled, one upload and one Pin;
 * - the answer to POST /v5/pins is lost -> outcome_unknown, reconciled from the board, one Pin;
 * - a 429 with Retry-After is waited out; a revoked token -> that account needs_reconnect.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import sharp from "sharp";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { accountSettingFields } from "../../src/domain/social/account-settings.ts";
import { openAccount, updateAccountSettings } from "../../src/domain/social/accounts.ts";
import { advanceDeliveries, runDeliveryStep } from "../../src/domain/social/engine.ts";
import { publishPost } from "../../src/domain/social/publish.ts";
import { handler as publishHandler } from "../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../src/tools/social/schedule_post.ts";
import { PIN_API_HOST, type PinterestUser, pinterestFake } from "../fakes/pinterest.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { networkSamples } from "../fakes/samples.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { connectPinterest } from "../helpers/pinterest-account.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";
import {
  account as sandboxAccount,
  key,
  named,
  toolContext,
  toolError,
} from "../tools/carousels/fixtures.ts";

const server = await startFakeNetworks();
// Videos are ready at the first status read (the provider tests cover slower processing).
const pin = pinterestFake(server, { ...FAKE_APPS.pinterest, processingPolls: 0 });
// The engine's waits (a network's next poll, Retry-After) pass at once on this clock and move it.
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["pinterest"]) } });
const samples = await networkSamples();
const alice = await app.user({ workspace: "Alice Studio" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;
const publish = named("publish_post", publishHandler);
const schedule = named("schedule_post", scheduleHandler);

/** Connects `user` as the browser flow does (test/helpers/pinterest-account.ts). */
const connect = (user: PinterestUser) => connectPinterest(app.ctx, owner, user);

async function stored(
  bytes: Buffer,
  kind: "image" | "video",
  mime: string,
  extra: Record<string, number> = {},
) {
  const storageKey = app.ctx.providers.storage.newKey(kind === "video" ? "mp4" : "jpg");
  await app.ctx.providers.storage.putBytes(storageKey, bytes);
  const asset = await createMediaAsset(db, owner, {
    kind,
    mimeType: mime,
    bytes: bytes.length,
    storageKey,
    source: "generated",
    ...extra,
  });
  return asset.asset_id;
}

const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#2a6" } })
    .jpeg()
    .toBuffer();

/** An approved post of `type` with the given media (and a product with a URL when `productUrl`). */
async function post(type: string, caption: string, media: string[], productUrl?: string): Promise<string> {
  let productId: string | null = null;
  if (productUrl) {
    const [p] = await db("products")
      .insert({ ...owned(), name: "Mug", product_url: productUrl })
      .returning("id");
    productId = p.id;
  }
  const [row] = await db("posts")
    .insert({
      ...owned(),
      type,
      status: "approved",
      caption,
      product_id: productId,
      media_asset_ids: JSON.stringify(media),
    })
    .returning("id");
  return row.id;
}

function owned() {
  return { user_id: owner.userId, workspace_id: owner.workspaceId };
}

async function imagePost(caption: string, productUrl?: string): Promise<string> {
  const bytes = await jpeg(1000, 1500);
  return post(
    "image",
    caption,
    [await stored(bytes, "image", "image/jpeg", { width: 1000, height: 1500 })],
    productUrl,
  );
}

async function videoPost(caption: string): Promise<string> {
  const bytes = await readFile(samples.mp4);
  return post("video", caption, [await stored(bytes, "video", "video/mp4", { durationSeconds: 4 })]);
}

async function deliveryOf(postId: string, accountId: string) {
  return db("deliveries").where({ post_id: postId, social_account_id: accountId }).first();
}

test("connect: the only board becomes the account's board, a reconnect keeps the user's choice; the page offers the boards", async () => {
  const user = pin.addUser({ username: "one.board", boards: ["Mugs"] });
  const id = await connect(user);
  const row = await db("social_accounts").where({ id }).first();
  assert.deepEqual(row.settings, { board_id: user.boards[0]!.id });
  const other = pin.addBoard(user, "Plates");
  await updateAccountSettings(db, owner, id, { board_id: other.id }, new Date());
  await connect(user);
  assert.deepEqual((await db("social_accounts").where({ id }).first()).settings, { board_id: other.id });
  const { fields, error } = await accountSettingFields(app.ctx, await openAccount(db, app.ctx.sealer, id));
  assert.equal(error, undefined);
  assert.deepEqual(fields, [
    {
      key: "board_id",
      label: "Pinterest board",
      options: [
        [user.boards[0]!.id, "Mugs"],
        [other.id, "Plates"],
      ],
      defaultValue: undefined,
    },
  ]);
});

test("publish_post and schedule_post refuse a live Pinterest account without a board: account_setup_required", async () => {
  const user = pin.addUser({ username: "two.boards", boards: ["A", "B"] });
  const id = await connect(user);
  const sandbox = await sandboxAccount(app, alice, "pinterest", "Sandbox Pins");
  const postId = await imagePost("Needs a board");
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [sandbox, id], idempotency_key: key() },
      toolContext(app, alice),
    ),
  );
  assert.equal(err.code, "account_setup_required");
  assert.equal(
    err.message,
    'the Pinterest account "two.boards Co" has no board chosen: the user must choose it on /settings/social before publishing or scheduling to it',
  );
  assert.deepEqual(err.details, { accounts: [{ social_account_id: id, setting: "board_id" }] });
  const inAnHour = new Date(Date.now() + 3600_000).toISOString();
  const err2 = await toolError(
    schedule.describe!(
      { post_id: postId, scheduled_for: inAnHour, social_account_ids: [id], idempotency_key: key() },
      toolContext(app, alice),
    ),
  );
  assert.equal(err2.code, "account_setup_required");
  assert.equal((await db("deliveries").where({ post_id: postId })).length, 0, "nothing created");
  await updateAccountSettings(db, owner, id, { board_id: user.boards[1]!.id }, new Date());
  await publish.describe!(
    { post_id: postId, social_account_ids: [sandbox, id], idempotency_key: key() },
    toolContext(app, alice),
  );
});

test("a carousel of images of different sizes is refused at the call for Pinterest (image_dimensions)", async () => {
  const user = pin.addUser({ username: "sizes", boards: ["Only"] });
  const id = await connect(user);
  const a = await stored(await jpeg(1000, 1500), "image", "image/jpeg", { width: 1000, height: 1500 });
  const b = await stored(await jpeg(1000, 1000), "image", "image/jpeg", { width: 1000, height: 1000 });
  const postId = await post("image", "Two sizes", [a, b]);
  for (const call of [
    () =>
      publish.describe!(
        { post_id: postId, social_account_ids: [id], idempotency_key: key() },
        toolContext(app, alice),
      ),
    () =>
      schedule.describe!(
        {
          post_id: postId,
          scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
          social_account_ids: [id],
          idempotency_key: key(),
        },
        toolContext(app, alice),
      ),
  ]) {
    const err = await toolError(call());
    assert.equal(err.code, "validation_failed");
    assert.match(
      err.message,
      /\(Pinterest, social_account_id [0-9a-f-]{36}\): image_dimensions: every image/,
    );
    assert.deepEqual(
      (err.details as { violations: Array<{ rule: string }> }).violations.map((v) => v.rule),
      ["image_dimensions"],
    );
  }
  assert.equal((await db("deliveries").where({ post_id: postId })).length, 0);
  const c = await stored(await jpeg(1000, 1500), "image", "image/jpeg", { width: 1000, height: 1500 });
  const same = await post("image", "Same size", [a, c]);
  await publish.describe!(
    { post_id: same, social_account_ids: [id], idempotency_key: key() },
    toolContext(app, alice),
  );
});

test("an image Pin with the product link and a video Pin: published with the fake's permalinks", async () => {
  const user = pin.addUser({ username: "alice.pins", boards: ["Shop"] });
  const id = await connect(user);
  const imageId = await imagePost("Mug of the week\nHand glazed.", "https://shop.example/mug");
  const videoId = await videoPost("Glazing the mug");
  const before = pin.created;
  for (const postId of [imageId, videoId]) {
    const result = await publishPost(
      app.ctx,
      owner,
      { post_id: postId, social_account_ids: [id] },
      undefined,
    );
    await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
  }
  const image = await deliveryOf(imageId, id);
  const video = await deliveryOf(videoId, id);
  for (const d of [image, video]) {
    assert.equal(d.status, "published", d.error ?? "");
    assert.equal(d.post_url, `https://www.pinterest.com/pin/${d.provider_post_id}/`);
  }
  const p = pin.pins.get(image.provider_post_id)!;
  assert.equal(p.title, "Mug of the week");
  assert.equal(p.link, "https://shop.example/mug");
  assert.equal(p.boardId, user.boards[0]!.id);
  assert.equal(pin.pins.get(video.provider_post_id)!.mediaType, "video");
  assert.equal(pin.created - before, 2);
  assert.equal((await db("posts").where({ id: imageId }).first()).status, "published");
});

test("worker killed while the video is processing: the next pass reconciles and continues, one upload, one Pin", async () => {
  const user = pin.addUser({ username: "crash.video", boards: ["Clips"] });
  const id = await connect(user);
  const postId = await videoPost("Crash while processing");
  const uploads = pin.uploads;
  const created = pin.created;
  const registrations = server.hitsFor(PIN_API_HOST, "/v5/media", "POST").length;
  await db("deliveries").insert({ ...owned(), post_id: postId, social_account_id: id, status: "pending" });
  const delivery = await deliveryOf(postId, id);
  assert.equal(await runDeliveryStep(app.ctx, delivery.id), "processing");
  const saved = (await deliveryOf(postId, id)).network_ids;
  assert.ok(saved.mediaId && saved.uploadedAt, "media id and upload saved");
  // The next step's worker dies mid-step: it leaves step_started_at set and its lease runs out.
  await db("deliveries")
    .where({ id: delivery.id })
    .update({
      step_started_at: new Date(),
      locked_until: new Date(Date.now() - 1000),
      next_attempt_at: null,
    });
  await advanceDeliveries(app.ctx, [delivery.id], { budgetSeconds: 60 });
  const done = await deliveryOf(postId, id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(pin.uploads - uploads, 1, "one upload");
  assert.equal(
    server.hitsFor(PIN_API_HOST, "/v5/media", "POST").length - registrations,
    1,
    "one registration",
  );
  assert.equal(pin.created - created, 1, "one Pin");
});

test("lost answer to POST /v5/pins: outcome_unknown, reconciled from the board's Pins, one Pin", async () => {
  const user = pin.addUser({ username: "lost.pin", boards: ["Lost"] });
  const id = await connect(user);
  const postId = await imagePost("Lost create answer");
  const created = pin.created;
  const creates = server.hitsFor(PIN_API_HOST, "/v5/pins", "POST").length;
  server.fault({ host: PIN_API_HOST, path: "/v5/pins", method: "POST" }, { kind: "lost" });
  const result = await publishPost(app.ctx, owner, { post_id: postId, social_account_ids: [id] }, undefined);
  await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
  const done = await deliveryOf(postId, id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.equal(pin.created - created, 1);
  assert.equal(
    server.hitsFor(PIN_API_HOST, "/v5/pins", "POST").length - creates,
    1,
    "the create was sent once",
  );
  assert.equal(done.network_ids.pinId, pin.pinsOf(user.id)[0]!.id);
});

test("429 with Retry-After is waited out, one Pin", async () => {
  const user = pin.addUser({ username: "limited", boards: ["Slow"] });
  const id = await connect(user);
  const postId = await imagePost("After the wait");
  const created = pin.created;
  server.fault(
    { host: PIN_API_HOST, path: "/v5/pins", method: "POST" },
    {
      kind: "rate_limit",
      retryAfterSeconds: 2,
      body: { code: 8, message: "This request exceeded a rate limit." },
    },
  );
  const started = clock.now().getTime();
  const result = await publishPost(app.ctx, owner, { post_id: postId, social_account_ids: [id] }, undefined);
  await advanceDeliveries(app.ctx, [result.deliveries[0]!.delivery_id], { budgetSeconds: 60 });
  const done = await deliveryOf(postId, id);
  assert.equal(done.status, "published", done.error ?? "");
  assert.ok(clock.now().getTime() - started >= 2000, "the Retry-After wait was honoured");
  assert.equal(pin.created - created, 1);
});

test("revoked token: that account needs_reconnect and its delivery fails with a clear reason; the other publishes", async () => {
  const revoked = pin.addUser({ username: "revoked.pins", boards: ["R"] });
  const fine = pin.addUser({ username: "fine.pins", boards: ["F"] });
  const revokedId = await connect(revoked);
  const fineId = await connect(fine);
  pin.revokeUser(revoked.id);
  const postId = await imagePost("Revoked and fine");
  const result = await publishPost(
    app.ctx,
    owner,
    { post_id: postId, social_account_ids: [revokedId, fineId] },
    undefined,
  );
  await advanceDeliveries(
    app.ctx,
    result.deliveries.map((d) => d.delivery_id),
    { budgetSeconds: 60 },
  );
  const bad = await deliveryOf(postId, revokedId);
  assert.equal(bad.status, "failed");
  assert.match(bad.error, /@revoked\.pins needs to be reconnected on \/settings\/social/);
  assert.ok(!String(bad.error).includes(revoked.accessToken));
  assert.equal((await db("social_accounts").where({ id: revokedId }).first()).status, "needs_reconnect");
  const good = await deliveryOf(postId, fineId);
  assert.equal(good.status, "published", good.error ?? "");
  assert.equal((await db("social_accounts").where({ id: fineId }).first()).status, "connected");
});
