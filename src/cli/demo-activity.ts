/**
 * The activity part of `admin demo` (run with the service context): a workspace that looks used, so every
 * browser page has something to show (the screenshots of docs/screenshots/ are taken of it). Everything goes
 * through the service's own paths, offline:
 * - sandbox accounts (src/providers/social/sandbox/): Instagram, Facebook (two Pages), LinkedIn, X, TikTok;
 * - a post published now to LinkedIn and X by the delivery engine (sandbox post pages, real `post_url`s);
 * - a post scheduled for tomorrow 09:00 in the owner's time zone to Instagram and Facebook;
 * - a delivery that failed because its Facebook Page needs reconnecting (the engine's own reason);
 * - a connection "Demo assistant" whose `schedule_post` request waits for approval (through the tool
 *   pipeline, so its approval page is a real one): a post of three images with alt texts to LinkedIn (a
 *   3-page document there) and X, with a first comment.
 * The user's time zone is set to Europe/Berlin.
 */
import { randomUUID } from "node:crypto";
import { Temporal } from "temporal-polyfill";
import type { AppContext } from "../context.ts";
import { setUserTimeZone } from "../domain/account/time-zone.ts";
import type { Owner } from "../domain/owner.ts";
import { markNeedsReconnect } from "../domain/social/accounts.ts";
import { connectSandboxAccounts } from "../domain/social/connect.ts";
import { advanceDeliveries } from "../domain/social/engine.ts";
import { publishPost } from "../domain/social/publish.ts";
import { schedulePost } from "../domain/social/schedules.ts";
import { TOOLS } from "../../generated/registry.ts";
import type { Network } from "../providers/social/types.ts";
import { callTool, createRuntime } from "../runtime/pipeline.ts";

/** The demo's time zone. */
export const DEMO_TIME_ZONE = "Europe/Berlin";

/** The scopes of the demo connection. */
const DEMO_SCOPES = ["read:profile", "read:content", "create:content", "publish:content", "schedule:content"];

/** Tomorrow (in `zone`) at `hour`:00, as an RFC 3339 timestamp with offset. */
function tomorrowAt(now: Date, zone: string, hour: number): string {
  return Temporal.Instant.fromEpochMilliseconds(now.getTime())
    .toZonedDateTimeISO(zone)
    .toPlainDate()
    .add({ days: 1 })
    .toZonedDateTime({ timeZone: zone, plainTime: Temporal.PlainTime.from({ hour }) })
    .toString({ timeZoneName: "never" });
}

/**
 * Seeds the activity for `owner` over the demo's posts (`text` and `launch`: text posts; `image`: an image
 * post; `gallery`: a post of three images). @returns the ids it made. @throws when a step of the service refuses (a bug in the demo).
 */
export async function seedDemoActivity(
  app: AppContext,
  owner: Owner,
  posts: { text: string; launch: string; image: string; gallery: string },
): Promise<Record<string, unknown>> {
  await setUserTimeZone(app.db, owner.userId, DEMO_TIME_ZONE);
  const connect = async (network: Network, name: string) =>
    (await connectSandboxAccounts(app, owner, network, [name]))[0]!.social_account_id;
  const accounts = {
    instagram: await connect("instagram", "Lumen Skincare"),
    facebook: await connect("facebook", "Demo Shop"),
    oldPage: await connect("facebook", "Demo Shop Outlet"),
    linkedin: await connect("linkedin", "Demo Shop"),
    x: await connect("x", "demoshop"),
    tiktok: await connect("tiktok", "demoshop"),
  };

  const published = await publishPost(
    app,
    owner,
    { post_id: posts.launch, social_account_ids: [accounts.linkedin, accounts.x] },
    undefined,
  );

  const scheduled = await schedulePost(
    app,
    owner,
    {
      post_id: posts.image,
      social_account_ids: [accounts.instagram, accounts.facebook],
      scheduled_for: tomorrowAt(app.clock.now(), DEMO_TIME_ZONE, 9),
    },
    undefined,
  );

  // The outlet Page's sign-in expires between the call and the first step: the engine fails the delivery
  // with its own reason and the account asks to be reconnected.
  const stopped = new AbortController();
  stopped.abort();
  const failing = await publishPost(
    app,
    owner,
    { post_id: posts.text, social_account_ids: [accounts.oldPage] },
    undefined,
    stopped.signal,
  );
  await markNeedsReconnect(
    app.db,
    accounts.oldPage,
    "Facebook ended the session: the Page's access was removed",
    app.clock.now(),
  );
  await advanceDeliveries(
    app,
    failing.deliveries.map((d) => d.delivery_id),
    { budgetSeconds: 5 },
  );

  const request = await pendingRequest(app, owner, {
    post_id: posts.gallery,
    social_account_ids: [accounts.linkedin, accounts.x],
    scheduled_for: tomorrowAt(app.clock.now(), DEMO_TIME_ZONE, 18),
    first_comment: "Which one is your favourite? The sale ends Sunday at midnight.",
  });

  return {
    social_accounts: accounts,
    published_deliveries: published.deliveries.map((d) => d.delivery_id),
    schedule_id: scheduled.schedule_id,
    failed_deliveries: failing.deliveries.map((d) => d.delivery_id),
    pending_request: request,
  };
}

/**
 * A connection "Demo assistant" (a registered client, a grant and a token record, as after consent) and its
 * `schedule_post`
 * call through the tool pipeline, which waits for browser approval. @returns the operation id.
 */
async function pendingRequest(
  app: AppContext,
  owner: Owner,
  args: { post_id: string; social_account_ids: string[]; scheduled_for: string; first_comment?: string },
): Promise<string> {
  const [client] = await app
    .db("oauth_clients")
    .insert({
      client_name: "Demo assistant",
      redirect_uris: JSON.stringify(["http://127.0.0.1:33418/callback"]),
      grant_types: JSON.stringify(["authorization_code", "refresh_token"]),
      response_types: JSON.stringify(["code"]),
    })
    .returning("client_id");
  const [grant] = await app
    .db("oauth_grants")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      client_id: client.client_id,
      resource: app.config.resourceUrl,
      scope: DEMO_SCOPES.join(" "),
      last_used_at: app.clock.now(),
    })
    .returning("id");
  // The record of the connection's access token (the JWT itself is never minted: the demo calls the
  // pipeline in process), so the connection lists as connected.
  const jti = randomUUID();
  await app.db("oauth_access_tokens").insert({
    jti,
    grant_id: grant.id,
    scope: DEMO_SCOPES.join(" "),
    expires_at: new Date(app.clock.now().getTime() + 3600_000),
  });
  const out = await callTool(
    createRuntime(app, TOOLS),
    {
      userId: owner.userId,
      workspaceId: owner.workspaceId,
      grantId: grant.id,
      clientId: client.client_id,
      scopes: new Set(DEMO_SCOPES),
      tokenId: jti,
    },
    "schedule_post",
    { ...args, idempotency_key: randomUUID() },
    { signal: new AbortController().signal, progress: () => {} },
  );
  if (out.kind !== "result" || out.envelope.status !== "approval_required")
    throw new Error(`demo: schedule_post did not wait for approval (${JSON.stringify(out)})`);
  return out.envelope.operation_id as string;
}
