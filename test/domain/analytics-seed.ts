/**
 * Seeding for the analytics sync tests that run against the networks' fakes: live accounts connected as the
 * connect flow saves them (`upsertConnectedAccount`, tokens sealed) and published deliveries pointing at the
 * fakes' post ids, inserted in one statement each.
 */
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import type { Capabilities } from "../../src/providers/social/network.ts";
import type { Network } from "../../src/providers/social/types.ts";
import type { TestApp } from "../helpers/app.ts";

const CAN: Capabilities = { text: true, image: true, carousel: true, video: true };

/** The owner of the seeded rows: a user of `app` and their workspace. */
export interface SeedOwner {
  user_id: string;
  workspace_id: string;
}

/** A live `network` account of `who` with the network's id `id`, its token and granted scopes. @returns its id. */
export async function liveAccount(
  app: TestApp,
  who: SeedOwner,
  network: Network,
  account: { id: string; accessToken: string; scopes: string[]; capabilities?: Capabilities },
): Promise<string> {
  const { account: saved } = await upsertConnectedAccount(
    app.ctx.db,
    app.ctx.sealer,
    { userId: who.user_id, workspaceId: who.workspace_id },
    {
      network,
      mode: "live",
      account: {
        networkAccountId: account.id,
        handle: `${network}.${account.id}`,
        capabilities: account.capabilities ?? CAN,
        metadata: {},
      },
      tokens: { accessToken: account.accessToken, scopes: account.scopes },
      now: new Date(),
    },
  );
  return saved.social_account_id;
}

/**
 * Published deliveries of `accountId` for the network post ids `ids` (one post each, published a minute
 * apart, newest first), with `networkIds(i)` as each delivery's saved network ids (default none).
 * @returns the deliveries' ids, in the order of `ids`.
 */
export async function publishedDeliveries(
  app: TestApp,
  who: SeedOwner,
  accountId: string,
  ids: string[],
  options: { type?: "text" | "video"; networkIds?: (i: number) => Record<string, string> } = {},
): Promise<string[]> {
  const db = app.ctx.db;
  const posts = await db("posts")
    .insert(
      ids.map((_, i) => ({
        workspace_id: who.workspace_id,
        user_id: who.user_id,
        type: options.type ?? "text",
        status: "published",
        caption: `Post ${i}`,
      })),
    )
    .returning("id");
  const rows = await db("deliveries")
    .insert(
      ids.map((id, i) => ({
        workspace_id: who.workspace_id,
        user_id: who.user_id,
        post_id: posts[i].id,
        social_account_id: accountId,
        status: "published",
        provider_post_id: id,
        network_ids: JSON.stringify(options.networkIds?.(i) ?? {}),
        published_at: new Date(Date.now() - (i + 1) * 60_000),
      })),
    )
    .returning("id");
  return rows.map((r: { id: string }) => r.id);
}
