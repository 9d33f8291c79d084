/**
 * Fixtures of the TikTok review tests (test only): the service started with TikTok credentials and
 * SOCIAL_HTTP_OVERRIDE pointing at the TikTok fake, a live TikTok account connected for a user (the tokens the
 * fake issued), and approved video/photo posts with stored media.
 */
import { readFile } from "node:fs/promises";
import { createMediaAsset } from "../../src/domain/media/media.ts";
import { publicMediaPrefix } from "../../src/domain/media/public-url.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { TIKTOK_CAPABILITIES } from "../../src/providers/social/tiktok/oauth.ts";
import { networkSamples } from "../fakes/samples.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { type TikTokCreator, tiktokFake } from "../fakes/tiktok.ts";
import { startTestApp, type TestApp, TestClock } from "../helpers/app.ts";
import { HIGH_LIMITS } from "../oauth/support.ts";

/** The app, the fake and helpers. The fake completes a post on the first status poll after the upload. */
export async function reviewWorld(options: { worker?: boolean } = {}) {
  const server = await startFakeNetworks();
  const tt = tiktokFake(server, {
    clientKey: "tt-client-key",
    clientSecret: "tt-secret",
    processingPolls: 0,
    postIdPolls: 0,
  });
  const app: TestApp = await startTestApp({
    // The delivery engine's waits for TikTok's next status poll pass at once on this clock and move it.
    clock: new TestClock({ skipWaits: true }),
    env: {
      ...HIGH_LIMITS,
      TIKTOK_CLIENT_ID: "tt-client-key",
      TIKTOK_CLIENT_SECRET: "tt-secret",
      SOCIAL_HTTP_OVERRIDE: server.url,
    },
    ...(options.worker ? { worker: true } : {}),
  });
  // TikTok pulls photos only from the app's verified URL prefix: the service's public media URLs.
  tt.verifiedUrlPrefixes = [publicMediaPrefix(app.url)];
  const samples = await networkSamples();

  /** Connects `creator` (live) for `owner`; returns the account id. */
  async function connectCreator(owner: Owner, creator: TikTokCreator): Promise<string> {
    const { account } = await upsertConnectedAccount(app.ctx.db, app.ctx.sealer, owner, {
      network: "tiktok",
      mode: "live",
      account: {
        networkAccountId: creator.openId,
        handle: creator.username,
        displayName: creator.nickname,
        capabilities: TIKTOK_CAPABILITIES,
        metadata: { username: creator.username },
      },
      tokens: {
        accessToken: creator.accessToken,
        refreshToken: creator.refreshToken,
        expiresAt: new Date(Date.now() + 86_400_000),
        scopes: ["user.info.basic", "user.info.profile", "video.publish"],
      },
      now: new Date(),
    });
    return account.social_account_id;
  }

  async function storeAsset(owner: Owner, file: string, kind: "image" | "video", durationSeconds?: number) {
    const bytes = await readFile(file);
    const ext = kind === "video" ? "mp4" : "jpg";
    const key = app.ctx.providers.storage.newKey(ext);
    await app.ctx.providers.storage.putBytes(key, bytes);
    const asset = await createMediaAsset(app.ctx.db, owner, {
      kind,
      mimeType: kind === "video" ? "video/mp4" : "image/jpeg",
      bytes: bytes.length,
      // The sample media's real measures (test/fakes/samples.ts): a 1080x1920 30 fps H.264/AAC video.
      width: 1080,
      height: kind === "video" ? 1920 : 1350,
      durationSeconds: durationSeconds ?? null,
      ...(kind === "video" ? { frameRate: 30, videoCodec: "h264", audioCodec: "aac" } : {}),
      storageKey: key,
    });
    return asset.asset_id;
  }

  /** An approved video post (the sample MP4, `durationSeconds` as recorded). */
  async function videoPost(owner: Owner, caption: string, durationSeconds = 4): Promise<string> {
    const asset = await storeAsset(owner, samples.mp4, "video", durationSeconds);
    const [row] = await app.ctx
      .db("posts")
      .insert({
        user_id: owner.userId,
        workspace_id: owner.workspaceId,
        type: "video",
        status: "approved",
        caption,
        media_asset_ids: JSON.stringify([asset]),
      })
      .returning("id");
    return row.id;
  }

  /** An approved carousel of `slides` ready JPEG slides (a TikTok photo post). */
  async function carouselPost(owner: Owner, caption: string, slides = 3): Promise<string> {
    const [row] = await app.ctx
      .db("posts")
      .insert({
        user_id: owner.userId,
        workspace_id: owner.workspaceId,
        type: "carousel",
        status: "approved",
        caption,
      })
      .returning("id");
    for (let i = 0; i < slides; i++) {
      const asset = await storeAsset(owner, samples.jpg, "image");
      await app.ctx
        .db("carousel_slides")
        .insert({ post_id: row.id, position: i + 1, status: "ready", image_asset_id: asset });
    }
    return row.id;
  }

  /** A video post that an automation sent to TikTok: a delivery waiting in `needs_review`. */
  async function waitingDelivery(owner: Owner, accountId: string, caption: string) {
    const postId = await videoPost(owner, caption);
    await app.ctx.db("posts").where({ id: postId }).update({ status: "needs_review" });
    const [row] = await app.ctx
      .db("deliveries")
      .insert({
        user_id: owner.userId,
        workspace_id: owner.workspaceId,
        post_id: postId,
        social_account_id: accountId,
        status: "needs_review",
      })
      .returning("id");
    return { postId, deliveryId: row.id as string };
  }

  return { server, tt, app, connectCreator, videoPost, carouselPost, waitingDelivery };
}
