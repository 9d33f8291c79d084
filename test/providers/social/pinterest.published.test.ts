/**
 * What the live Pinterest adapter does with a published Pin (src/providers/social/pinterest/published.ts),
 * against the provider-shaped fake (test/fakes/pinterest.ts), which checks every call against Pinterest's
 * OpenAPI description (test/contracts/pinterest.json): a first comment is `unsupported` (API v5 has no
 * comment endpoint); delete_post's removal deletes the Pin (`DELETE /v5/pins/{pin_id}`, the delivery becomes
 * `removed`); a Pin already deleted on Pinterest counts as removed (404); another account's Pin is refused
 * (403) and that copy's removal fails, the delivery staying published.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { createMediaAsset } from "../../../src/domain/media/media.ts";
import type { Owner } from "../../../src/domain/owner.ts";
import { publishPost } from "../../../src/domain/social/publish.ts";
import { removeCopies } from "../../../src/domain/social/removal.ts";
import { NetworkRejectedError } from "../../../src/providers/social/network.ts";
import { FAKE_APPS, liveNetworkEnv } from "../../fakes/live-env.ts";
import { PIN_API_HOST, type PinterestUser, pinterestFake } from "../../fakes/pinterest.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { startTestApp, TestClock } from "../../helpers/app.ts";
import { connectPinterest } from "../../helpers/pinterest-account.ts";
import { HIGH_LIMITS } from "../../oauth/support.ts";

const server = await startFakeNetworks();
const pin = pinterestFake(server, { ...FAKE_APPS.pinterest });
const clock = new TestClock({ skipWaits: true });
const app = await startTestApp({ clock, env: { ...HIGH_LIMITS, ...liveNetworkEnv(server, ["pinterest"]) } });
const alice = await app.user({ workspace: "Alice Pins removal" });
const owner: Owner = { userId: alice.user_id, workspaceId: alice.workspace_id };
const db = app.ctx.db;
const owned = () => ({ user_id: owner.userId, workspace_id: owner.workspaceId });

/** Publishes a new image Pin to `user`'s only board (with `firstComment`); its post and delivery. */
async function publishedPin(user: PinterestUser, caption: string, firstComment?: string) {
  const accountId = await connectPinterest(app.ctx, owner, user);
  const bytes = await sharp({ create: { width: 1000, height: 1500, channels: 3, background: "#36c" } })
    .jpeg()
    .toBuffer();
  const storageKey = app.ctx.providers.storage.newKey("jpg");
  await app.ctx.providers.storage.putBytes(storageKey, bytes);
  const asset = await createMediaAsset(db, owner, {
    kind: "image",
    mimeType: "image/jpeg",
    bytes: bytes.length,
    storageKey,
    source: "generated",
    width: 1000,
    height: 1500,
  });
  const [post] = await db("posts")
    .insert({
      ...owned(),
      type: "image",
      status: "approved",
      caption,
      media_asset_ids: JSON.stringify([asset.asset_id]),
    })
    .returning("id");
  const result = await publishPost(
    app.ctx,
    owner,
    {
      post_id: post.id,
      social_account_ids: [accountId],
      ...(firstComment ? { first_comment: firstComment } : {}),
    },
    undefined,
  );
  const d = await db("deliveries").where({ id: result.deliveries[0]!.delivery_id }).first();
  assert.equal(d.status, "published", d.error ?? "");
  return { postId: post.id as string, delivery: d };
}

const statusOf = async (id: string) => (await db("deliveries").where({ id }).first()).status;

test("delete_post's removal deletes the Pin; the delivery is removed; a first comment was unsupported", async () => {
  const user = pin.addUser({ username: "remove.pin", boards: ["Mugs"] });
  const { postId, delivery } = await publishedPin(user, "Take this Pin down", "No comments on Pinterest");
  assert.equal(delivery.first_comment_status, "unsupported");
  assert.ok(pin.pins.has(delivery.provider_post_id));
  const deletes = server.counter("pinterest.deletes");
  const results = await removeCopies(app.ctx, owner, postId);
  assert.deepEqual(results, [
    {
      delivery_id: delivery.id,
      network: "pinterest",
      post_url: delivery.post_url,
      result: "removed",
      reason: null,
    },
  ]);
  assert.ok(!pin.pins.has(delivery.provider_post_id), "deleted at Pinterest");
  assert.equal(server.counter("pinterest.deletes") - deletes, 1);
  assert.equal(await statusOf(delivery.id), "removed");
  assert.equal(
    server.hitsFor(PIN_API_HOST, `/v5/pins/${delivery.provider_post_id}`, "DELETE")[0]?.status,
    204,
  );
});

test("a Pin already deleted on Pinterest (404 Pin not found) counts as removed", async () => {
  const user = pin.addUser({ username: "gone.pin", boards: ["Gone"] });
  const { postId, delivery } = await publishedPin(user, "Deleted by hand");
  pin.pins.delete(delivery.provider_post_id);
  const [result] = await removeCopies(app.ctx, owner, postId);
  assert.equal(result!.result, "removed", result!.reason ?? "");
  assert.equal(await statusOf(delivery.id), "removed");
  assert.equal(
    server.hitsFor(PIN_API_HOST, `/v5/pins/${delivery.provider_post_id}`, "DELETE")[0]?.status,
    404,
  );
});

test("another account's Pin is refused (403): that copy's removal fails with Pinterest's reason, the delivery stays published", async () => {
  const author = pin.addUser({ username: "pin.author", boards: ["Theirs"] });
  const theirs = await publishedPin(author, "Not yours");
  const other = pin.addUser({ username: "pin.other", boards: ["Mine"] });
  const mine = await publishedPin(other, "Mine, pointing at theirs");
  // The delivery names a Pin of another account (e.g. a board shared and then left).
  await db("deliveries")
    .where({ id: mine.delivery.id })
    .update({ provider_post_id: theirs.delivery.provider_post_id });
  const [result] = await removeCopies(app.ctx, owner, mine.postId);
  assert.equal(result!.result, "failed");
  assert.match(
    result!.reason!,
    /^Pinterest refused the request \(7\): Not authorized to access board or Pin\.; the post stays live$/,
  );
  assert.equal(await statusOf(mine.delivery.id), "published");
  assert.ok(pin.pins.has(theirs.delivery.provider_post_id), "nothing deleted");
  // The adapter's error is a refusal, not a credentials problem: the account is not asked to reconnect.
  const adapter = app.ctx.providers.networks.adapter("pinterest");
  await assert.rejects(
    adapter.remover!.remove(
      {
        id: "00000000-0000-4000-8000-000000000003",
        network: "pinterest",
        networkAccountId: other.id,
        handle: other.username,
        tokens: { accessToken: other.accessToken, scopes: [] },
        settings: {},
        metadata: {},
      },
      { networkPostId: theirs.delivery.provider_post_id, postUrl: null, networkIds: {}, type: "image" },
    ),
    (err: unknown) => err instanceof NetworkRejectedError,
  );
});
