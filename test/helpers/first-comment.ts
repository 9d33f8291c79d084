/**
 * Publishing a post with a first comment in the first-comment tests of each network
 * (test/providers/social/*.published.test.ts): a new approved text post, published to one account through the
 * engine (src/domain/social/publish.ts `publishPost`); the approved text post itself for other engine tests.
 */
import type { AppContext } from "../../src/context.ts";
import type { Owner } from "../../src/domain/owner.ts";
import { publishPost } from "../../src/domain/social/publish.ts";

/** A new approved text post with `caption` of `owner`; its id. */
export async function approvedTextPost(ctx: AppContext, owner: Owner, caption: string): Promise<string> {
  const [post] = await ctx
    .db("posts")
    .insert({
      user_id: owner.userId,
      workspace_id: owner.workspaceId,
      type: "text",
      status: "approved",
      caption,
    })
    .returning("id");
  return post.id as string;
}

/**
 * Publishes a new approved text post with `caption` to `accountId` with `firstComment`.
 * @returns the post's id and its delivery's id.
 */
export async function publishWithComment(
  ctx: AppContext,
  owner: Owner,
  accountId: string,
  caption: string,
  firstComment: string,
): Promise<{ postId: string; deliveryId: string }> {
  const postId = await approvedTextPost(ctx, owner, caption);
  const result = await publishPost(
    ctx,
    owner,
    { post_id: postId, social_account_ids: [accountId], first_comment: firstComment },
    undefined,
  );
  return { postId, deliveryId: result.deliveries[0]!.delivery_id };
}
