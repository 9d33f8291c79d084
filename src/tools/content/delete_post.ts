/**
 * delete_post (review, service spec 3.1): `describe` checks ownership and labels the post with a caption
 * excerpt; `execute` soft-deletes it after approval, cancels its pending schedules and stops its deliveries
 * that are not published yet (nothing more is sent to a network). Idempotent.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { deletePost, getPost, postLabel } from "../../domain/content/posts.ts";

export const handler: ToolHandlers["delete_post"] = {
  async describe(input, ctx) {
    const post = await getPost(ctx.db, ownerOf(ctx.auth), input.post_id);
    const label = postLabel(post);
    return {
      summary: `Delete the ${post.type} post “${label}”. Deliveries not published yet are stopped; content already published on a social network stays there.`,
      resources: [{ kind: "post", id: post.post_id, label }],
      destinations: [],
    };
  },
  async execute(input, ctx) {
    const result = await deletePost(ctx.db, ownerOf(ctx.auth), input.post_id, ctx.app.clock.now());
    return { data: { post_id: result.post_id, deleted: true } };
  },
};
