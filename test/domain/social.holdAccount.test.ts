/**
 * An account's own budget spent (src/domain/social/lanes-state.ts `holdAccount`; docs/operations.md "The
 * delivery loop"): its waiting deliveries are held until the budget is back, all of them, or only those not
 * started yet when the budget is the one of the call that starts a post (TikTok's init, 6 requests a minute
 * per user access token), so the uploads and status polls of posts under way go on.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectSocialAccount } from "../../src/domain/social/accounts.ts";
import { holdAccount } from "../../src/domain/social/lanes-state.ts";
import { startTestApp } from "../helpers/app.ts";
import { textPost } from "../tools/carousels/fixtures.ts";

const app = await startTestApp({ queue: false });
const me = await app.user();
const owner = { userId: me.user_id, workspaceId: me.workspace_id };
const STATES = ["pending", "uploading", "processing", "outcome_unknown", "published"] as const;

/** A TikTok account with one due delivery in each of STATES; the ids by state. */
async function accountWithDeliveries(handle: string): Promise<Record<string, string>> {
  const account = await connectSocialAccount(app.ctx.db, app.ctx.sealer, owner, {
    network: "tiktok",
    displayName: handle,
    handle,
    mode: "live",
    networkAccountId: `tt-${handle}`,
    accessToken: `token-${handle}`,
    scopes: [],
  });
  const ids: Record<string, string> = {};
  for (const status of STATES) {
    const [row] = await app.ctx
      .db("deliveries")
      .insert({
        workspace_id: me.workspace_id,
        user_id: me.user_id,
        post_id: await textPost(app, me, "Held or not"),
        social_account_id: account.social_account_id,
        status,
        next_attempt_at: new Date(Date.now() - 1000),
      })
      .returning("id");
    ids[status] = row.id;
  }
  return { ...ids, account: account.social_account_id };
}

async function dueAt(id: string): Promise<number> {
  const row = await app.ctx.db("deliveries").where({ id }).first("next_attempt_at");
  return new Date(row.next_attempt_at).getTime();
}

test("the call that starts a post limited: only the account's posts not started yet are held", async () => {
  const ids = await accountWithDeliveries("starts_only");
  const until = new Date(Date.now() + 60_000);
  assert.equal(await holdAccount(app.ctx, ids.account!, until, { startsOnly: true }), 1);
  assert.equal(await dueAt(ids.pending!), until.getTime());
  for (const status of ["uploading", "processing", "outcome_unknown", "published"])
    assert.ok((await dueAt(ids[status]!)) < Date.now(), `${status} goes on`);
});

test("the account's budget limited: every active delivery of the account is held", async () => {
  const ids = await accountWithDeliveries("every_call");
  const until = new Date(Date.now() + 60_000);
  assert.equal(await holdAccount(app.ctx, ids.account!, until), 4);
  for (const status of ["pending", "uploading", "processing", "outcome_unknown"])
    assert.equal(await dueAt(ids[status]!), until.getTime(), `${status} held`);
  assert.ok((await dueAt(ids.published!)) < Date.now(), "a published delivery is left alone");
});
